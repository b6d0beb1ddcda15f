"""The one task per room that moves the table when nobody else will: bots' turns, turns whose timer ran
out, turns of people away past the grace period, and the announcement that a seat is now played for.

What is due and when comes from the pure schedule (``app.table.schedule``); this module only sleeps until
then (woken early by any change), asks the room to act, and backs off when that fails. With several
processes, only the holder of the table's lease acts, and only a process with sockets at the table tries to
hold it: the others keep asking while something is due, so one of them takes over when the holder dies. A
table played at its own pace moves at its deadline with nobody at it: there every process that holds it
(woken by the store's deadline, ``RoomManager.wake_due``) asks for the lease.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime
from typing import Protocol

from app.store import VersionConflict
from app.table import Table
from app.table.schedule import pace_of

from .clock import Clock
from .lease import Leases

log = logging.getLogger(__name__)

MAX_FAILURES = 5  # failures in a row; then the driver waits for the next change at the table (or a reload)
RETRY_SECONDS = 1.0  # times the failures in a row: the back-off before trying again


class Kicked(Protocol):
    """The driver as the room's parts see it."""

    def kick(self) -> None:
        """Something changed: look at the table again."""


class Driven(Protocol):
    code: str
    closing: bool
    table: Table

    def has_sockets(self) -> bool:
        """Someone is at the table through this process."""
        ...

    def next_wake(self) -> datetime | None: ...

    async def act(self, now: datetime) -> None:
        """Do what is due at ``now`` (a server move, an announcement); raise if it could not commit."""

    async def catch_up(self) -> None:
        """Another writer moved the table on: read what it did from the store, and tell everyone."""

    async def check_store(self) -> None:
        """Check the cached table against the store's version (one read), catching up if it is behind."""


class Driver:
    def __init__(self, room: Driven, clock: Clock, leases: Leases | None = None) -> None:
        """``leases``: None in one process (this driver always acts, sockets or not)."""
        self.room, self.clock, self.leases = room, clock, leases
        self.task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()  # set on every change: the task looks at the table again

    def kick(self) -> None:
        """Something changed: look again (and start the task if there is something to wait for)."""
        if self.room.closing:
            return
        self._wake.set()
        if (self.task is None or self.task.done()) and self.room.next_wake() is not None:
            self.task = asyncio.create_task(self._run(), name=f"driver-{self.room.code}")

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)

    async def _run(self) -> None:
        failures = 0
        while not self.room.closing and failures < MAX_FAILURES:
            self._wake.clear()
            wake = self.room.next_wake()
            if wake is None:
                return
            now = self.clock.now()
            if wake > now:
                await self._sleep_or_wake((wake - now).total_seconds())
                continue
            if self.leases is not None:
                alone = pace_of(self.room.table) is not None  # a paced table moves with nobody at it
                if not self.room.has_sockets() and not alone:  # nobody here: a process with sockets drives it
                    return
                taking_over = not self.leases.holds(self.room.code)
                if not await self.leases.acquire(self.room.code):  # another process drives it
                    await self._sleep_or_wake(self.leases.poll_seconds)
                    continue
                if taking_over:  # the last holder may have died with its last move untold
                    await self.room.check_store()
                    continue  # look at the table again: it may have moved on
            try:
                await self.room.act(now)
                failures = 0
            except VersionConflict:  # another process moved the table first: catch up and look again
                await self.room.catch_up()
            except Exception:
                failures += 1
                log.exception("room %s: a server move failed (%d in a row)", self.room.code, failures)
                await self.clock.sleep(RETRY_SECONDS * failures)  # not cut short: a failure reloads the room

    async def _sleep_or_wake(self, seconds: float) -> None:
        sleeper = asyncio.ensure_future(self.clock.sleep(seconds))
        waker = asyncio.ensure_future(self._wake.wait())
        try:
            await asyncio.wait({sleeper, waker}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            sleeper.cancel()
            waker.cancel()
