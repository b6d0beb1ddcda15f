"""Who a socket's token is at a table: a seat, a seat asked for, a former player, or nobody."""

from __future__ import annotations

from dataclasses import dataclass

from app.table import Table


@dataclass(frozen=True, slots=True)
class Identity:
    """What a token is at a table: its seat (None: it watches), and the seat it has asked for."""

    seat: int | None
    requested: int | None = None


SPECTATOR = Identity(None)


def identify(table: Table, token_hash: str) -> Identity | None:
    """The token's identity at ``table``; None for a token that is nothing there (a bad token)."""
    if (held := table.holder(token_hash)) is not None:
        return Identity(held.index)
    if (asked := table.claim_of(token_hash)) is not None:
        return Identity(None, asked.index)
    if table.former_of(token_hash) is not None:
        return SPECTATOR
    return None
