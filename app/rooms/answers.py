"""The one place a client message meets its answer function: ``answer`` picks it by the message's type and
hands it the table and plain values. Hello, moves and resync are the room's own (``hello``, ``playing``);
everything else is answered here as an ``Answer`` the room runs."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from app.config import Settings
from app.protocol import (
    AvatarIn,
    ChatIn,
    Continue,
    HintIn,
    Leave,
    Ping,
    Pong,
    Practice,
    ReactIn,
    Ready,
    RequestSeat,
    WithdrawRequest,
)
from app.table import Table
from app.table.schedule import Timing

from . import leaving, lobby, seat_changes, talk
from .lobby import LobbyMessage
from .outcomes import Answer, Asker, Reply

Answered = (
    Ping | ChatIn | ReactIn | HintIn | RequestSeat | WithdrawRequest | Continue | Ready | Practice
) | (AvatarIn | Leave | LobbyMessage)  # every client message but hello, a move and resync


@dataclass(frozen=True, slots=True)
class Terms:
    """What a room answers by that is not the table: its settings, and whether other processes share it."""

    chat_max_length: int
    max_name_length: int
    round_break: timedelta
    shared: bool

    @classmethod
    def of(cls, settings: Settings, timing: Timing, *, shared: bool) -> Terms:
        return cls(settings.chat_max_length, settings.max_name_length, timing.round_break, shared)


def answer(
    table: Table,
    message: Answered,
    asker: Asker,
    *,
    now: datetime,
    terms: Terms,
    away: Callable[[Table], Mapping[int, datetime]],
    hints: talk.Hints,
) -> Answer:
    """What ``message`` from ``asker`` comes to at ``table``; a refusal raises."""
    if isinstance(message, Ping):
        return Reply(Pong())
    if isinstance(message, ChatIn):
        return talk.chat(table, message, asker, now=now, max_length=terms.chat_max_length)
    if isinstance(message, ReactIn):
        return talk.react(message, asker, now=now)
    if isinstance(message, HintIn):
        return hints.of(table, asker.seat)
    if isinstance(message, RequestSeat | WithdrawRequest):
        return seat_changes.ask(message, asker, at=now, max_name_length=terms.max_name_length)
    if isinstance(message, Continue):
        return leaving.continue_round(asker, length=terms.round_break)
    if isinstance(message, Ready):
        return lobby.ready(asker)
    if isinstance(message, Practice):
        return seat_changes.practice(message, asker, at=now)
    if isinstance(message, AvatarIn):
        return seat_changes.avatar(message, asker, at=now)
    if isinstance(message, Leave):
        return leaving.leave(asker, at=now, away=away)
    return lobby.host_command(table, message, asker, at=now, shared=terms.shared)
