"""The server's own moves, made when the driver finds one due: the host role handed on when the host is
gone, seat requests nobody is behind any more dropped, the move that is due played (a bot's, or one for a
person out of time or away), and seats whose grace period just ended announced. Each goes through the same
table command and the room's one commit path as anyone's; the room is seen through the narrow ``Acting``."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import datetime
from typing import Protocol

from app.config import Settings
from app.engine import Draw
from app.engine.bots import choose_action
from app.table import Change, Table
from app.table import commands as table_commands
from app.table.schedule import (
    MISSED_TURNS,
    Timing,
    auto_announcement_due,
    due_move,
    host_handover,
    pace_of,
    unanswered_requests,
)

from .clock import Clock
from .presence import Presence


class Acting(Protocol):
    """What the server's moves need of the room."""

    lock: asyncio.Lock
    clock: Clock
    presence: Presence
    timing: Timing

    @property
    def table(self) -> Table: ...

    @property
    def closing(self) -> bool: ...

    def waiting_requests(self) -> dict[int, datetime]:
        """Pending seat requests with no socket of their asker here, and since when."""
        ...

    async def commit(self, change: Change) -> None:
        """The one commit path. Under the lock."""

    async def publish_presence(self) -> None:
        """Tell every process who is here (and what the announcement changed)."""


def timing_of(settings: Settings) -> Timing:
    """When server moves fall due, from the settings."""
    return Timing.of(
        grace_seconds=settings.grace_seconds,
        bot_delay_ms=settings.bot_delay_ms,
        host_away_seconds=settings.host_away_seconds,
        round_break_seconds=settings.round_break_seconds,
        request_wait_seconds=settings.request_wait_seconds,
    )


async def act(room: Acting, now: datetime) -> None:
    """The driver's call: hand the host role on when the host is gone, play the move that is due (a bot's,
    or one for a person out of time or away) through the same command and commit as anyone's, and announce
    seats whose grace period just ended."""
    away = room.presence.away(room.table)
    if announce := auto_announcement_due(room.table, away, room.presence.announced, now, room.timing):
        room.presence.announced = now
    async with room.lock:
        now = room.clock.now()
        successor = host_handover(room.table, room.presence.away(room.table), now, room.timing)
        if successor is not None and not room.closing:
            await room.commit(table_commands.make_host(room.table, index=successor, at=now, handover=True))
        for index in unanswered_requests(room.table, room.waiting_requests(), now, room.timing):
            if not room.closing:  # nobody has been behind it for a while: it goes
                await room.commit(table_commands.drop_request(room.table, index=index, at=now))
        due = due_move(room.table, room.presence.away(room.table), now, room.timing)
        if room.closing or due is None or room.table.game is None:
            if announce:
                await room.publish_presence()
            return
        action = choose_action(room.table.game, due.seat, due.level, room.table.game_seed)
        change = table_commands.play(room.table, seat=due.seat, action=action, at=now)
        auto = not room.table.seats[due.seat].is_bot
        await room.commit(replace(change, auto=auto))
        if auto and not isinstance(action, Draw) and pace_of(room.table) is not None and not room.closing:
            # a paced table: the person's time ran out and the server played their whole turn
            missed = table_commands.missed_turn(
                room.table, index=due.seat, at=now, away=room.presence.away(room.table), limit=MISSED_TURNS
            )
            if missed is not None:
                await room.commit(missed)
