"""Test doubles for the rooms layer: a clock that moves only when told, and socket-less connections."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from typing import Any

from app.protocol import parse_client_message
from app.rooms import Connection, InProcessBroadcaster, Room
from app.rooms.broadcast import Notice


class ManualClock:
    """Time stands still until ``advance``; sleepers wake when their time comes."""

    def __init__(self) -> None:
        self.t = 0.0
        self._sleepers: list[tuple[float, asyncio.Future[None]]] = []

    def now(self) -> datetime:
        return datetime(2026, 1, 1, tzinfo=UTC) + timedelta(seconds=self.t)

    def monotonic(self) -> float:
        return self.t

    def steady(self) -> float:
        """Manual too: a test makes a peer fall silent by advancing this clock."""
        return self.t

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._sleepers.append((self.t + seconds, future))
        await future

    @property
    def sleeping(self) -> int:
        return sum(1 for _, f in self._sleepers if not f.done())

    async def advance(self, seconds: float) -> None:
        self.t += seconds
        for wake, future in list(self._sleepers):
            if wake <= self.t and not future.done():
                future.set_result(None)
        self._sleepers = [(w, f) for w, f in self._sleepers if not f.done()]
        for _ in range(5):
            await asyncio.sleep(0)


class FakeSocket:
    """A Connection plus helpers to send parsed messages to a room and read what it queued."""

    def __init__(self, room: Room) -> None:
        self.room = room
        self.conn = Connection(max_queue=10_000)
        self.seen: list[dict[str, Any]] = []

    async def say(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        await self.room.handle(self.conn, parse_client_message(json.dumps(message)))
        return self.drain()

    def drain(self) -> list[dict[str, Any]]:
        out = [json.loads(text) for text in self.conn.drain()]
        self.seen.extend(out)
        return out


async def wait_until(check: Any, timeout: float = 10) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        if loop.time() > deadline:
            raise TimeoutError("condition not met")
        await asyncio.sleep(0.005)


class SharedButSilent(InProcessBroadcaster):
    """Says other processes exist (as with Redis), but none of their notices ever arrive."""

    shared = True


class Linked(InProcessBroadcaster):
    """Processes in one test, each hearing the others' notices as Redis would carry them (``link``)."""

    shared = True

    def __init__(self) -> None:
        super().__init__()
        self.others: list[Linked] = []

    @staticmethod
    def link(count: int) -> list[Linked]:
        linked = [Linked() for _ in range(count)]
        for one in linked:
            one.others = [other for other in linked if other is not one]
        return linked

    async def publish(self, notice: Notice) -> None:
        self.deliver(notice)
        for other in self.others:
            other.deliver(notice)
