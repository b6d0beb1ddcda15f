"""What a client message comes to, as values. The answer functions (``seat_changes``, ``lobby``, ``talk``,
``leaving``, picked by ``answers.answer``) take the table, the message and plain values and return one of
these, or raise a ``Refusal``; the room runs it (``Room.run``): a reply to the asker, a line said to the
table, a change stored through the one commit path, or an update of what is not stored."""

from __future__ import annotations

from collections.abc import Callable, Set
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from app.protocol import ChatOut, HintOut, Pong, ReactionOut, SeatRequested
from app.table import Change, Table

Maker = Callable[[Table], Change | None]  # the change asked for, made on the table as it is (None: nothing)
Update = Callable[[Table, Set[int], datetime], Table | None]  # (table, seats connected, now) -> next table
Limit = tuple[Literal["chat", "lobby", "request"], int]  # the room's rate limit a message counts against, and
# its key: a seat (or minus a socket's id, for a spectator's seat requests)


@dataclass(frozen=True, slots=True)
class Asker:
    """Who sent a message, as plain values read off the socket."""

    seat: int | None
    token_hash: str | None = None
    socket: int = 0
    address: str = "unknown"
    kept: bool = False  # the name its message gives is kept with a passkey it has not proved


@dataclass(frozen=True, slots=True)
class Reply:
    """A message to the asker only (None: nothing to say); nothing changes."""

    message: HintOut | Pong | None
    limit: Limit | None = None


@dataclass(frozen=True, slots=True)
class Said:
    """A chat line or a reaction, published to everyone at the table (every process); nothing changes."""

    kind: Literal["chat", "reaction"]
    line: ChatOut | ReactionOut
    limit: Limit | None = None


@dataclass(frozen=True, slots=True)
class Stored:
    """A change to commit, made by ``make`` on the table as it is then (and made again on a newer table
    when another process moved it first)."""

    make: Maker
    limit: Limit | None = None
    known_as: str | None = None  # the asker's token hash from now on (as it was again if this fails)
    budget: tuple[str, str] | None = None  # (address, token hash): a seat request, within the room's budgets
    reply: SeatRequested | None = None  # to the asker once committed
    host: int | None = None  # the store is read first if this seat does not host the cached table
    declines: int | None = None  # the seat whose request the host declines: its asker cools down


@dataclass(frozen=True, slots=True)
class Unstored:
    """An update of what is not stored (the pause between rounds, the lobby's ready check), told to
    everyone as presence."""

    update: Update
    limit: Limit | None = None


Answer = Reply | Said | Stored | Unstored
