"""A socket's hello, answered: who its token is at the table (a seat, a seat asked for, a former player, or
nobody), then its welcome (the recent chat, read from the store, and the round's moves, the store's log as
the room holds it), the presence and the state."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from app.config import Settings
from app.protocol import ChatLine, Hello, RoomInfo, Welcome
from app.table import Refusal, Table

from . import render
from .connection import CLOSE_POLICY, Connection
from .driver import Kicked
from .feed import RoundMoves
from .limits import Throttle
from .presence import Presence
from .tokens import hash_token

BAD_HELLOS = 5  # hellos with a token that is nothing here; then the socket is closed


@dataclass(frozen=True, slots=True)
class Identity:
    """What a token is at a table: its seat (None: it watches), the seat it has asked for, and the bot's seat
    that was its own (it may take it back without asking)."""

    seat: int | None
    requested: int | None = None
    former: int | None = None


SPECTATOR = Identity(None)


def identify(table: Table, token_hash: str) -> Identity | None:
    """The token's identity at ``table``; None for a token that is nothing there (a bad token)."""
    if (held := table.holder(token_hash)) is not None:
        return Identity(held.index)
    former = table.former_of(token_hash)
    if (asked := table.claim_of(token_hash)) is not None:
        return Identity(None, asked.index, None if former is None else former.index)
    if former is not None:
        return Identity(None, former=former.index)
    return None


class RecentChat(Protocol):
    """The table's kept chat (``kept_chat.TableChat``)."""

    async def recent(self) -> list[ChatLine]:
        """The recent lines and reactions, from the store (none if it does not answer)."""
        ...


class Greeted(Protocol):
    """What a hello needs of the room."""

    code: str
    settings: Settings
    presence: Presence
    round_moves: RoundMoves
    presence_news: Throttle

    @property
    def chat(self) -> RecentChat: ...

    @property
    def table(self) -> Table: ...

    @property
    def driver(self) -> Kicked: ...

    async def check_store(self) -> None:
        """With several processes, catch the cache up if the store is ahead of it."""

    def room_info(self) -> RoomInfo: ...

    def state_for(self, seat: int | None) -> str: ...


async def hello(room: Greeted, conn: Connection, hello: Hello) -> None:
    """The socket joins as its token's seat (or watches); everyone hears the presence. With several
    processes the cache is checked against the store first, however fresh it looks: a table the socket
    gets is never older than the store's."""
    if conn.joined:
        raise Refusal("bad_message", "hello was said already on this connection")
    await room.check_store()
    chat = await room.chat.recent()  # the last await before the socket joins: later lines reach it live
    identity = SPECTATOR
    if hello.token:
        wanted = hash_token(hello.token)
        found = identify(room.table, wanted)
        if found is None:
            refusal = Refusal("bad_token", "this token is not a seat of this room; join again or watch")
            conn.bad_hellos += 1
            if conn.bad_hellos < BAD_HELLOS:
                raise refusal
            conn.refuse(refusal)  # and no more guesses on this socket
            conn.close(CLOSE_POLICY)
            return
        identity = found
        conn.token_hash = wanted
    seat = identity.seat
    if seat is None and room.presence.spectator_count() >= room.settings.max_spectators_per_table:
        raise Refusal("not_allowed", "this table has as many spectators as it takes; try again later")
    conn.acks_in_state = hello.acks == "in_state"
    room.presence.join(conn, seat)
    host = seat is not None and seat == room.table.host_seat
    welcome = Welcome(
        room=room.code,
        seat=seat,
        you_are_host=host,
        requested_seat=identity.requested,
        former_seat=identity.former,
        chat=chat or None,
    )
    conn.send_text(room.round_moves.welcome_text(welcome, room.table))  # with the round's moves
    room.driver.kick()
    if not await room.presence_news():  # coalesced with others: this socket hears it at once
        conn.send_text(render.presence_text(room.table, room.room_info()))
    if hello.last_version != room.table.version:
        conn.send_text(room.state_for(seat))
