"""The host's table commands (lobby, seats, seat requests; a new game's seed and public id are drawn here, not
in the pure core), answered, and the lobby's ready check."""

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
from app.table import Change, Refusal, Table, pause
from app.table import commands as table_commands

from .outcomes import Asker, Stored, Unstored
from .tokens import new_public_id

LobbyMessage = (
    (SetOptions | AddBot | RemoveSeat | BotSeat | MakeHost | ApproveSeat | DeclineSeat | Reopen | Start)
    | Rematch
    | EndGameIn
)  # what the room's dispatch leaves to the host's commands (mypy checks the two agree)
NOT_HOST = "only the host can do that"


def host_command(table: Table, message: LobbyMessage, asker: Asker, *, at: datetime, shared: bool) -> Stored:
    """The host's lobby commands (rate-limited per seat). Who the host is, is judged on the table each
    attempt is made on: the role may have moved through another process since this cache was read
    (``shared``: there are other processes; then the store is read first when ``table`` says another seat
    hosts it). A declined asker waits before asking again."""
    seat, token_hash = asker.seat, asker.token_hash
    if seat is None or token_hash is None:
        raise Refusal("not_seated", "only the host can do that; spectators cannot")
    if seat != table.host_seat and not shared:  # one process: the cache is true
        raise Refusal("not_host", NOT_HOST)

    def make(table: Table) -> Change | None:  # by the token's seat on this table, not an index read before
        held = table.holder(token_hash)
        if held is None or held.index != table.host_seat:
            raise Refusal("not_host", NOT_HOST)
        return lobby_change(table, message, at)

    declines = message.seat if isinstance(message, DeclineSeat) else None
    return Stored(make, limit=("lobby", seat), host=seat if shared else None, declines=declines)


def ready(asker: Asker) -> Unstored:
    """A seated person says they are in for the next game (the lobby's ready check; not stored)."""
    seat = asker.seat
    if seat is None:
        raise Refusal("not_seated", "only players at the table can say they are ready")
    return Unstored(lambda table, present, now: pause.ready(table, seat=seat), limit=("lobby", seat))


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
