"""A socket's hello: who its token is at the table (a seat, a seat asked for, a former player, or nobody),
its welcome, and its first state unless it holds the current version already."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.protocol import Hello, Welcome
from app.table import Refusal, Table

from . import render
from .connection import Connection
from .tokens import hash_token

if TYPE_CHECKING:
    from .room import Room


async def greet(room: Room, conn: Connection, hello: Hello) -> None:
    """The socket joins as its token's seat (or watches); everyone hears the presence."""
    if conn.joined:
        raise Refusal("bad_message", "hello was said already on this connection")
    seat: int | None = None
    requested: int | None = None
    if hello.token:
        wanted = hash_token(hello.token)
        found = known(room.table, wanted)
        if found is None and room.broadcaster.shared:  # joined through another process just now?
            async with room.lock:
                await room.catch_up_locked()
            found = known(room.table, wanted)
        if found is None:
            raise Refusal("bad_token", "this token is not a seat of this room; join again or watch")
        seat, requested = found
        conn.token_hash = wanted
    if seat is None and room.presence.spectator_count() >= room.settings.max_spectators_per_table:
        raise Refusal("not_allowed", "this table has as many spectators as it takes; try again later")
    room.presence.join(conn, seat)
    host = seat is not None and seat == room.table.host_seat
    conn.send(Welcome(room=room.code, seat=seat, you_are_host=host, requested_seat=requested))
    room.driver.kick()
    if not await room.presence_news():  # coalesced with others: this socket hears it at once
        conn.send_text(render.presence_text(room.table, room.room_info()))
    if hello.last_version != room.table.version:
        conn.send_text(room.state_for(seat))


def known(table: Table, token_hash: str) -> tuple[int | None, int | None] | None:
    """What a token is at this table: (its seat, None), (None, the seat it asked for), (None, None) for a
    bot's seat's former player; None: nothing (a bad token)."""
    if (held := table.holder(token_hash)) is not None:
        return held.index, None
    if (asked := table.claim_of(token_hash)) is not None:
        return None, asked.index
    if table.former_of(token_hash) is not None:
        return None, None
    return None
