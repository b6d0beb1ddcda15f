"""Seats and seat requests, answered: a REST join, a spectator's request for a bot's seat (or its
withdrawal), a player's practice switch and avatar. Each change is a *maker*: a function from the table as
it is to the change it asks for (None: nothing to do). The room calls a maker again on the newer table when
another process moved it first, so these carry no version; who may do what is judged on the table each
attempt is made on."""

from __future__ import annotations

from datetime import datetime

from app.protocol import AvatarIn, Practice, RequestSeat, SeatRequested, WithdrawRequest
from app.table import Change, Refusal, Table
from app.table import commands as table_commands
from app.table.origins import origin_of
from app.table.text import clean_name

from .outcomes import Asker, Limit, Maker, Reply, Stored
from .tokens import hash_token, new_token


def join(*, name: str, token_hash: str, address: str, at: datetime, program: bool) -> Maker:
    """The next open seat for a new person (None when there is none: they watch instead)."""
    return lambda table: table_commands.join(
        table,
        name=name,
        token_hash=token_hash,
        at=at,
        program=program,
        origin=origin_of(table.origin_salt, address),
    )


def request_seat(*, index: int, name: str | None, token_hash: str, address: str, at: datetime) -> Maker:
    """Ask for a bot's seat (it passes once the host approves, or at once for its former player)."""
    return lambda table: table_commands.request_seat(
        table,
        index=index,
        name=name,
        token_hash=token_hash,
        at=at,
        origin=origin_of(table.origin_salt, address),
    )


def withdraw_request(*, token_hash: str, at: datetime) -> Maker:
    """Take back a request for a seat (nothing to do if there is none)."""
    return lambda table: table_commands.withdraw_request(table, token_hash=token_hash, at=at)


def joining(
    name: str, seat: int | None, *, token_hash: str, address: str, at: datetime, program: bool
) -> Stored:
    """A REST join: the next open seat; with ``seat`` (a bot's), a request for it (within the room's
    budgets), which passes once approved."""
    if seat is None:
        return Stored(join(name=name, token_hash=token_hash, address=address, at=at, program=program))
    request = request_seat(index=seat, name=name, token_hash=token_hash, address=address, at=at)
    return Stored(request, budget=(address, token_hash))


def ask(
    message: RequestSeat | WithdrawRequest, asker: Asker, *, at: datetime, max_name_length: int
) -> Reply | Stored:
    """A spectator asks for a bot's seat (or takes the request back), counted per socket. One who has no
    token is given one: it identifies the request, and opens the seat once it passes (the asker is known
    by it at once, so a seat handed over at once finds it). The name is checked once the request is
    counted."""
    if asker.seat is not None:
        raise Refusal("already_seated", f"you play seat {asker.seat} already; one person holds one seat")
    limit: Limit = ("request", -asker.socket)  # spectators have no seat: each socket is limited on its own
    if isinstance(message, WithdrawRequest):
        if asker.token_hash is None:
            return Reply(None, limit=limit)
        return Stored(withdraw_request(token_hash=asker.token_hash, at=at), limit=limit)
    token: str | None = None
    if asker.token_hash is None:
        token = new_token()
        token_hash = hash_token(token)
    else:
        token_hash = asker.token_hash
    given = message.name

    def request(table: Table) -> Change | None:
        name = None if given is None else clean_name(given, max_length=max_name_length, code="bad_message")
        origin = origin_of(table.origin_salt, asker.address)
        return table_commands.request_seat(
            table, index=message.seat, name=name, token_hash=token_hash, at=at, origin=origin, kept=asker.kept
        )

    return Stored(
        request,
        limit=limit,
        known_as=token_hash,
        budget=(asker.address, token_hash),
        reply=SeatRequested(seat=message.seat, token=token),
    )


def practice(message: Practice, asker: Asker, *, at: datetime) -> Stored:
    """A seated person plays their own seat for practice (left out of the standings), or counts it again
    (rate-limited like the lobby's commands)."""
    seat, token_hash = asker.seat, asker.token_hash
    if seat is None or token_hash is None:
        raise Refusal("not_seated", "only players at the table choose practice for their seat")

    def make(
        table: Table,
    ) -> Change | None:  # the seat the token holds on this table, not an index read before
        held = table.holder(token_hash)
        if held is None:
            raise Refusal("not_seated", "your seat is no longer yours; only players choose practice")
        return table_commands.set_practice(table, index=held.index, on=message.on, at=at)

    return Stored(make, limit=("lobby", seat))


def avatar(message: AvatarIn, asker: Asker, *, at: datetime) -> Stored:
    """A seated person shows a face at their own seat (one of the fixed few), in the lobby or during a
    game (rate-limited like the lobby's commands). The seat is the one their token holds on the table it
    is tried on."""
    seat, token_hash = asker.seat, asker.token_hash
    if seat is None or token_hash is None:
        raise Refusal("not_seated", "only players at the table pick an avatar, for their own seat")

    def make(table: Table) -> Change | None:
        held = table.holder(token_hash)
        if held is None:
            raise Refusal("not_seated", "your seat is no longer yours; only players pick an avatar")
        return table_commands.set_avatar(table, index=held.index, avatar=message.avatar, at=at)

    return Stored(make, limit=("lobby", seat))


def asker_of(table: Table, seat: int | None) -> str | None:
    """The token hash that asked for ``seat`` (None: no request there, or no such seat)."""
    if seat is None or not 0 <= seat < len(table.seats):
        return None
    claim = table.seats[seat].claim
    return None if claim is None else claim.token_hash


def unanswered_request(table: Table, token_hash: str | None) -> bool:
    """The token has a request for a seat that the host has not answered yet."""
    if token_hash is None:
        return False
    asked = table.claim_of(token_hash)
    return asked is not None and asked.claim is not None and not asked.claim.approved
