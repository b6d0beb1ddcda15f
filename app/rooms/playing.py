"""A player's move, answered: under the room's lock, an action id seen before is answered from the acks
(never applied twice, here or through another process), a move that saw a newer table than the cache
first catches it up, and the move is made with ``commands.play`` and committed through the one path."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Protocol

from app.metrics import ACTION_LATENCY
from app.protocol import Ack, ActionMessage
from app.store import AckRecord, VersionConflict
from app.table import Change, Refusal, Table
from app.table import commands as table_commands

from .clock import Clock
from .connection import Connection

RESTARTING = "the server is restarting; reconnect in a moment and try again"


class Following(Protocol):
    """The follower's checks of the cache against the store, as a move needs them."""

    def may_be_behind(self) -> bool: ...

    async def catch_up_locked(self) -> bool: ...

    async def game_unmoved(self) -> bool: ...

    async def ack_from_store(self, action_id: str, refused: Exception) -> AckRecord: ...


class Played(Protocol):
    """What a move needs of the room."""

    lock: asyncio.Lock
    clock: Clock
    acks: dict[str, AckRecord]

    @property
    def table(self) -> Table: ...

    @property
    def follower(self) -> Following: ...

    @property
    def closing(self) -> bool: ...

    async def commit(self, change: Change, *, ack: tuple[Connection, str] | None = None) -> None:
        """The one commit path. Under the lock."""


async def _kept_turn(room: Played, seat: int) -> None:
    """At a paced table, a person who moves again has missed no turn in a row (a write only when they had).
    Losing this write to another process's move costs nothing but the count's reset."""
    if room.closing or room.table.seats[seat].is_bot or not room.table.seats[seat].missed:
        return
    change = table_commands.kept_turn(room.table, index=seat, at=room.clock.now())
    if change is not None:
        with contextlib.suppress(VersionConflict):
            await room.commit(change)


async def action(room: Played, conn: Connection, message: ActionMessage) -> None:
    if conn.seat is None:
        raise Refusal("not_seated", "spectators cannot play; join a seat first")
    started = time.perf_counter()
    async with room.lock:
        if room.closing:
            raise Refusal("not_allowed", RESTARTING)
        ahead = message.version is not None and message.version > room.table.version
        if ahead and room.follower.may_be_behind():
            await room.follower.catch_up_locked()  # the client has seen a newer table: notices were missed
        seen = room.acks.get(message.id)
        for attempt in range(2):
            if seen is not None:
                break
            try:
                change = table_commands.play(
                    room.table,
                    seat=conn.seat,
                    action=message.action.to_action(),
                    at=room.clock.now(),
                    client_id=message.id,
                    version=message.version,
                )
                await room.commit(change, ack=(conn, message.id))
                ACTION_LATENCY.observe(time.perf_counter() - started)
                await _kept_turn(room, conn.seat)
                return
            except VersionConflict as exc:  # another process committed first: if not to the game (a
                if attempt == 0 and await room.follower.game_unmoved():  # seat request, say), made again
                    await room.follower.catch_up_locked()
                    seen = room.acks.get(message.id)
                    continue
                seen = await room.follower.ack_from_store(message.id, exc)
            except Refusal as exc:
                seen = await room.follower.ack_from_store(message.id, exc)
        assert seen is not None
        if seen.seat != conn.seat:
            raise Refusal("bad_message", f"action id {message.id!r} was used by another seat")
        conn.send(Ack(id=message.id, version=seen.version))  # a retry: never applied twice
