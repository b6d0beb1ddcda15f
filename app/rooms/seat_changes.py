"""What people ask of a table besides moves (a REST join, a seat request or its withdrawal, the host's lobby
commands), each as a *maker*: a function from the table as it is to the change it asks for (None: nothing
to do). The room calls a maker again on the newer table when another process moved it first, so these
carry no version; who may do what is judged on the table each attempt is made on."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime

from app.table import Change, Refusal, Table
from app.table import commands as table_commands

from .lobby import LobbyMessage, lobby_change

Maker = Callable[[Table], Change | None]
NOT_HOST = "only the host can do that"


def join(*, name: str, token_hash: str, at: datetime, program: bool) -> Maker:
    """The next open seat for a new person (None when there is none: they watch instead)."""
    return lambda table: table_commands.join(table, name=name, token_hash=token_hash, at=at, program=program)


def request_seat(*, index: int, name: str | None, token_hash: str, at: datetime) -> Maker:
    """Ask for a bot's seat (it passes once the host approves, or at once for its former player)."""
    return lambda table: table_commands.request_seat(
        table, index=index, name=name, token_hash=token_hash, at=at
    )


def withdraw_request(*, token_hash: str, at: datetime) -> Maker:
    """Take back a request for a seat (nothing to do if there is none)."""
    return lambda table: table_commands.withdraw_request(table, token_hash=token_hash, at=at)


def practice(seat: int, *, on: bool, at: datetime) -> Maker:
    """A person plays their own seat for practice (left out of the standings), or counts it again."""
    return lambda table: table_commands.set_practice(table, index=seat, on=on, at=at)


def avatar(seat: int, *, avatar: str, at: datetime) -> Maker:
    """A person shows a face at their own seat (one of the fixed few)."""
    return lambda table: table_commands.set_avatar(table, index=seat, avatar=avatar, at=at)


def leave(seat: int, *, at: datetime, away: Callable[[Table], Mapping[int, datetime]]) -> Maker:
    """The person at ``seat`` leaves: a bot plays it; the host role passes on if it was theirs. Refused when
    ``seat`` is no longer the person's own on the table it is tried on (``away``: who is away there)."""
    return lambda table: table_commands.leave(table, index=seat, at=at, away=away(table))


def lobby(seat: int, message: LobbyMessage, at: datetime) -> Maker:
    """One of the host's lobby commands; refused unless ``seat`` hosts the table it is tried on."""

    def make(table: Table) -> Change | None:
        if seat != table.host_seat:
            raise Refusal("not_host", NOT_HOST)
        return lobby_change(table, message, at)

    return make


def unanswered_request(table: Table, token_hash: str | None) -> bool:
    """The token has a request for a seat that the host has not answered yet."""
    if token_hash is None:
        return False
    asked = table.claim_of(token_hash)
    return asked is not None and asked.claim is not None and not asked.claim.approved
