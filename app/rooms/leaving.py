"""Leaving, answered: a player who leaves the table (a bot plays their seat), a spectator whose request
goes when their last socket does, Continue on the round's results, and the pause that ends when the last
player who had not pressed it leaves."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime, timedelta

from app.table import Change, Refusal, Table, pause
from app.table import commands as table_commands

from .outcomes import Asker, Stored, Unstored
from .seat_changes import unanswered_request, withdraw_request


def leave(asker: Asker, *, at: datetime, away: Callable[[Table], Mapping[int, datetime]]) -> Stored:
    """A seated person leaves the table: a bot plays their seat, the host role passes on, and every tab of
    theirs watches from then on (``away``: who is away at the table the change is made on). Nothing to do
    if their token holds no seat there any more (handed to a bot through another process, say)."""
    seat, token_hash = asker.seat, asker.token_hash
    if seat is None or token_hash is None:
        raise Refusal("not_seated", "only players at the table can leave it")

    def make(table: Table) -> Change | None:
        held = table.holder(token_hash)
        if held is None:
            return None
        return table_commands.leave(table, index=held.index, at=at, away=away(table))

    return Stored(make, limit=("lobby", seat))


def requester_left(table: Table, asker: Asker, *, still_here: bool, at: datetime) -> Stored | None:
    """A spectator's socket went away: with no other socket of theirs here (``still_here``), the request
    they made and the host has not answered goes (None: nothing to withdraw)."""
    token_hash = asker.token_hash
    if asker.seat is not None or token_hash is None or still_here:
        return None
    if not unanswered_request(table, token_hash):
        return None
    return Stored(withdraw_request(token_hash=token_hash, at=at))


def continue_round(asker: Asker, *, length: timedelta) -> Unstored:
    """A player pressed Continue on the round's results: everyone sees it, and the pause ends once every
    present player has. Outside a pause it changes nothing."""
    seat = asker.seat
    if seat is None:
        raise Refusal("not_seated", "only players at the table can continue; spectators wait")
    return Unstored(
        lambda table, present, now: pause.continue_round(
            table, seat=seat, present=present, length=length, now=now
        )
    )


def settle(*, length: timedelta) -> Unstored:
    """Someone left: the pause ends if everyone still present has pressed Continue."""
    return Unstored(lambda table, present, now: pause.settle(table, present=present, length=length, now=now))
