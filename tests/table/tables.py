"""Tables for the pure tests: one started at a fixed time, with people and bots in its seats."""

from __future__ import annotations

from datetime import UTC, datetime

from app.table import Table
from app.table import commands as c

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def started_table(*, bots: list[str], timer: int, seats: int, seed: int) -> Table:
    """A table of ``seats`` seats (the host, ``bots``, then guests), its game started at ``T0``."""
    table = c.new_table(
        code="ABCD2345",
        host="Host",
        token_hash="h",
        bots=bots,
        seat_count=seats,
        options={"turn_timer": timer},
        now=T0,
    )
    while len(table.seats) < seats:
        table = c.seat_person(
            table, name=f"Guest {len(table.seats)}", token_hash=f"g{len(table.seats)}", at=T0
        ).table
    return c.with_game_id(c.start_game(table, seed=seed, public_id="abcdefghijkm", at=T0), 1).table
