"""The host's table commands (lobby, seats, seat requests; a new game's seed and public id are drawn here, not
in the pure core)."""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import assert_never

from app.protocol import (
    AddBot,
    ApproveSeat,
    BotSeat,
    DeclineSeat,
    EndGameIn,
    MakeHost,
    Rematch,
    RemoveSeat,
    Reopen,
    SetOptions,
    Start,
)
from app.table import Change, Table
from app.table import commands as table_commands

from .tokens import new_public_id

LobbyMessage = (
    (SetOptions | AddBot | RemoveSeat | BotSeat | MakeHost | ApproveSeat | DeclineSeat | Reopen | Start)
    | Rematch
    | EndGameIn
)  # what the room's dispatch leaves to the host's commands (mypy checks the two agree)


def lobby_change(table: Table, message: LobbyMessage, now: datetime) -> Change | None:
    """The host's lobby commands, as table commands."""
    if isinstance(message, SetOptions):
        return table_commands.set_options(table, options=message.options, seats=message.seats, at=now)
    if isinstance(message, AddBot):
        return table_commands.add_bot(table, level=message.level, at=now)
    if isinstance(message, RemoveSeat):
        return table_commands.remove_seat(table, index=message.seat, at=now)
    if isinstance(message, BotSeat):
        return table_commands.hand_to_bot(table, index=message.seat, level=message.level, at=now)
    if isinstance(message, MakeHost):
        return table_commands.make_host(table, index=message.seat, at=now)
    if isinstance(message, ApproveSeat):
        return table_commands.approve_seat(table, index=message.seat, at=now)
    if isinstance(message, DeclineSeat):
        return table_commands.decline_seat(table, index=message.seat, at=now)
    if isinstance(message, Reopen):
        return table_commands.reopen(table, at=now)
    if isinstance(message, EndGameIn):
        return table_commands.end_game(table, at=now)
    if isinstance(message, Start | Rematch):
        return table_commands.start_game(
            table,
            seed=secrets.randbits(62),
            public_id=new_public_id(),
            at=now,
            rematch=isinstance(message, Rematch),
        )
    assert_never(message)  # mypy: every lobby message is handled
