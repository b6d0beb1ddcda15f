"""Names kept with passkeys, at the door: whether a name (or a look-alike of it) is kept from a person who
has not proved it. The fact is read from the store (any process's claims count) and handed to the table
core, which refuses (``name_kept``): a REST join or a new table before it is tried, a spectator's request
for a seat on a socket inside ``request_seat``."""

from __future__ import annotations

from typing import Protocol

from app.protocol import ClientMessage, RequestSeat
from app.table.text import name_skeleton

from .connection import Connection
from .outcomes import Asker


class Claims(Protocol):
    """The store's claims (``Store.name_claim``)."""

    async def name_claim(self, skeleton: str) -> object | None: ...


async def kept_from(claims: Claims, name: str | None, proved: str | None) -> bool:
    """Whether ``name`` is kept from someone whose browser proved the name of skeleton ``proved`` (None: no
    passkey session). A name's holder may take it in any spelling that reads the same (any case)."""
    if name is None:
        return False
    skeleton = name_skeleton(name.strip())
    if proved is not None and proved == skeleton:
        return False
    return await claims.name_claim(skeleton) is not None


async def asker_of(claims: Claims, conn: Connection, message: ClientMessage) -> Asker:
    """Who sent ``message`` on ``conn``; for a request for a seat under a name, whether that name is kept from
    them (their handshake's passkey session proved another, or none)."""
    kept = isinstance(message, RequestSeat) and await kept_from(claims, message.name, conn.proved)
    return Asker(conn.seat, conn.token_hash, conn.id, conn.address, kept)
