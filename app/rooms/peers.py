"""What other server processes say about a table (with ``REDIS_URL``), read as strictly as a client message.

Anyone who can publish on Redis could say anything, so nothing heard is trusted as it comes: who is at the
table through a process is checked against the table's seats and the spectator cap, a chat line against the
text rules and the seat's name, a reaction against the emoji list. Moves are never taken from a notice at
all: a ``state`` notice only says that the store has a newer version, and the room reads it from there.
Each function returns a value (or None for a notice to ignore); the room decides what to do with it.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from app.protocol import ChatOut, ReactionOut
from app.table import Refusal, Table, clean_text, pause

from .presence import Presence

log = logging.getLogger(__name__)

PROCESS_ID_LENGTH = 32  # a process id is 12 hex digits; anything much longer is not one of ours


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class PauseSaid(_Strict):
    """Who pressed Continue through a process, for the pause it names (``pause.pause_key``)."""

    key: list[Any] | None
    continued: list[int] = Field(max_length=64)
    ended: str | None = None


class HereSaid(_Strict):
    """Who is at one table through one process."""

    process: str = Field(min_length=1, max_length=PROCESS_ID_LENGTH)
    seats: list[int] = Field(max_length=64)
    spectators: int = Field(ge=0)
    pause: PauseSaid | None = None
    # Bots' seats whose pending request has its asker's socket there: the request is not unattended.
    askers: list[int] = Field(default=[], max_length=64)


class Heartbeat(_Strict):
    """A process's word about every table it has sockets at (one notice for all)."""

    process: str = Field(min_length=1, max_length=PROCESS_ID_LENGTH)
    tables: dict[str, dict[str, Any]]  # each read with ``here_said`` against the table it names


def heartbeat(payload: dict[str, Any]) -> Heartbeat | None:
    """A heartbeat's payload, or None if it is not one (logged, then ignored)."""
    try:
        return Heartbeat.model_validate(payload)
    except ValidationError:
        log.warning("ignored a malformed heartbeat from another process")
        return None


def here_said(payload: dict[str, Any], table: Table, *, max_spectators: int) -> HereSaid | None:
    """Who is at ``table`` through another process, if it is believable: seats of this table, and no more
    spectators than a table takes."""
    try:
        said = HereSaid.model_validate(payload)
    except ValidationError:
        log.warning("room %s: ignored a malformed presence notice", table.code)
        return None
    return said if _believable(said, table, max_spectators) else None


def _believable(said: HereSaid, table: Table, max_spectators: int) -> bool:
    seats = range(len(table.seats))
    ok = all(s in seats for s in (*said.seats, *said.askers)) and said.spectators <= max_spectators
    if said.pause is not None:
        ok = ok and all(s in seats for s in said.pause.continued)
    if not ok:
        log.warning("room %s: ignored an unbelievable presence notice from %s", table.code, said.process)
    return ok


def here(process_id: str, table: Table, presence: Presence) -> dict[str, Any]:
    """Who is at the table through this process (and pressed Continue), for the others."""
    said = table.pause
    return {
        "process": process_id,
        "seats": sorted(presence.local_seats()),
        "spectators": presence.local_spectators(),
        "askers": sorted(presence.local_askers(table)),
        "pause": {
            "key": pause.pause_key(table),
            "continued": sorted(said.continued),
            "ended": None if said.ended is None else said.ended.isoformat(),
        },
    }


def heard_pause(table: Table, said: PauseSaid) -> Table | None:
    """The table with what another process says of the pause, if that is news (None: nothing new)."""
    try:
        ended = None if said.ended is None else datetime.fromisoformat(said.ended)
    except ValueError:
        return None
    if ended is not None and ended.tzinfo is None:
        return None
    return pause.heard(table, key=said.key, continued=said.continued, ended=ended)


def chat_line(payload: dict[str, Any], table: Table, *, max_length: int) -> ChatOut | None:
    """A chat line another process relayed, if it is one a player here could have sent: a person's seat
    under its own name, text that passes the chat rules unchanged."""
    try:
        line = ChatOut.model_validate(payload, strict=True)
        if clean_text(line.text, max_length=max_length, what="chat line") != line.text:
            return None
    except (ValidationError, Refusal):
        log.warning("room %s: ignored a chat line that breaks the rules", table.code)
        return None
    return line if _person_named(table, line.seat, line.name) else None


def reaction(payload: dict[str, Any], table: Table) -> ReactionOut | None:
    """A reaction another process relayed, if it is a reaction from a person's seat."""
    try:
        said = ReactionOut.model_validate(payload, strict=True)
    except ValidationError:
        log.warning("room %s: ignored a malformed reaction", table.code)
        return None
    seat = table.seats[said.seat] if 0 <= said.seat < len(table.seats) else None
    return said if seat is not None and not seat.is_bot else None


def _person_named(table: Table, index: int, name: str) -> bool:
    seat = table.seats[index] if 0 <= index < len(table.seats) else None
    return seat is not None and not seat.is_bot and seat.name == name
