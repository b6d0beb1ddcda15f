"""Where a person joined a table from, without keeping their address: a keyed hash (HMAC-SHA256) of the
client address under the table's own secret salt, cut to 16 hex digits. Two seats of one table that joined
from one address have the same origin; origins of different tables cannot be compared, and the address
cannot be read back without the salt. The standings use it to leave out the cheapest padding: a game whose
counted seats all joined from one address (``app.store.standings_writes.counted_seats``)."""

from __future__ import annotations

import hashlib
import hmac
import secrets

ORIGIN_LENGTH = 16  # hex digits kept: 64 bits, enough that two addresses at one table never collide


def new_salt() -> str:
    """A table's secret for its origins, made once with the table."""
    return secrets.token_hex(16)


def origin_of(salt: str | None, address: str) -> str | None:
    """The origin of ``address`` at the table with ``salt`` (None: a table from before origins, or an
    address the server could not tell)."""
    if salt is None or not address or address == "unknown":
        return None
    digest = hmac.new(salt.encode(), address.encode(), hashlib.sha256).hexdigest()
    return digest[:ORIGIN_LENGTH]
