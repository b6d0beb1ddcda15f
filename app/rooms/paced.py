"""Tables played at their own pace, process-wide: waking the ones whose turn ran out while no process here
held them (``wake_due``), and queueing the turn notifications that are due (``nudge_turns``). Both read the
store once per look; the manager runs them every ``PACE_WAKE_SECONDS``, and sees them on the narrow
``Waking`` protocol (this module imports no room)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any, Protocol

from app.store import Store

from .clock import Clock

log = logging.getLogger(__name__)

REMINDER_BEFORE = timedelta(hours=1)  # a paced turn's last reminder: when this much of it is left
# A turn this young is not notified yet, nor its last hour reminded of this soon after it began: a socket its
# person opened on another process a moment ago may not be in that process's heartbeat (every 0.5 s) yet, and
# the notification would reach a person at the table.
TURN_SETTLES = timedelta(seconds=1)


class Nudger(Protocol):
    """What is needed of the turn notifications (``app.push.Pusher``): queue one, never waiting."""

    def turn(
        self,
        code: str,
        token_hash: str,
        turn_key: str,
        host_name: str,
        *,
        ttl: int = ...,
        due_at: datetime | None = ...,
    ) -> bool: ...

    def reminder(
        self,
        code: str,
        token_hash: str,
        turn_key: str,
        host_name: str,
        *,
        ttl: int = ...,
        due_at: datetime | None = ...,
    ) -> bool: ...


class Waking(Protocol):
    """What these need of the manager."""

    store: Store
    clock: Clock
    draining: bool
    nudger: Nudger | None
    seats_elsewhere: dict[str, dict[str, set[int]]]  # process -> table -> seats with sockets there

    @property
    def rooms(self) -> Mapping[str, Any]:
        """code -> Room (its ``driver`` and ``presence``)."""
        ...

    async def get(self, code: str) -> Any: ...


async def wake_due(manager: Waking) -> int:
    """Load the paced tables whose turn ran out while no process here held them (one indexed read of the
    store): each room's driver then plays the turn, under the lease with several processes, so exactly one
    process plays it. A due table held here has its driver look again. Returns how many were loaded."""
    try:
        codes = await manager.store.due_rooms(manager.clock.now())
    except Exception as exc:  # the store is away: the next look tries again
        log.warning("could not read the tables that are due: %s", exc)
        return 0
    woken = 0
    for code in codes:
        if manager.draining:
            break
        if (held := manager.rooms.get(code)) is not None:
            held.driver.kick()  # in memory: its driver looks again (the clock may have jumped)
            continue
        woken += await manager.get(code) is not None
    return woken


def has_socket(manager: Waking, code: str, seat: int) -> bool:
    """Whether the person at ``seat`` of table ``code`` has a socket open there, here or through another
    process (as the heartbeats say)."""
    room = manager.rooms.get(code)
    if room is not None and seat in room.presence.local_seats():
        return True
    return any(seat in tables.get(code, ()) for tables in manager.seats_elsewhere.values())


async def nudge_turns(manager: Waking) -> int:
    """Queue the turn notifications that are due: for each person's turn under way at a paced table (for at
    least ``TURN_SETTLES``) with a device subscribed (one read of the store) and no socket open there, "your
    turn", and once an hour is left, the last reminder (not at a one-hour pace). The pusher sends each turn's
    notification at most once per device, in any process (its claim in the store). Returns how many were
    queued."""
    if manager.nudger is None:
        return 0
    try:
        turns = await manager.store.turns_to_nudge(manager.clock.now())
    except Exception as exc:  # the store is away: the next look tries again
        log.warning("could not read the turns to notify: %s", exc)
        return 0
    queued, now = 0, manager.clock.now()
    for turn in turns:
        if now - (turn.due_at - timedelta(hours=turn.hours)) < TURN_SETTLES:
            continue  # the next look, a moment later, decides
        if has_socket(manager, turn.code, turn.seat):
            continue
        key = f"{turn.code}:{turn.due_at.isoformat(timespec='seconds')}"
        left = max(60, int((turn.due_at - now).total_seconds()))
        args = (turn.code, turn.token_hash, key, turn.host_name)
        queued += manager.nudger.turn(*args, ttl=left, due_at=turn.due_at)
        in_last_hour = turn.due_at - now <= REMINDER_BEFORE - TURN_SETTLES
        if in_last_hour and timedelta(hours=turn.hours) > REMINDER_BEFORE:
            queued += manager.nudger.reminder(*args, ttl=left, due_at=turn.due_at)
    return queued
