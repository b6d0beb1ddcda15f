"""Names kept with passkeys, at the door: whether a name (or a look-alike of it) is kept from a person who
has not proved it. The fact is read from the store (any process's claims count) and handed to the table core,
which refuses the seat (``name_kept``)."""

from __future__ import annotations

from typing import Protocol

from app.table.text import name_skeleton


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
