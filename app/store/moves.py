"""A move inside a round, as the hot path writes it: the room's version check, the log row and the game's
version, and nothing else (no snapshot). ``pg_moves`` writes one as a single statement on asyncpg;
``sqlite_moves`` writes every one that queued for SQLite's writer in a single call on a thread."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


class MoveNotApplied(Exception):
    """The room was not at the version the move was made from (nothing of it was written)."""


@dataclass(frozen=True, slots=True)
class MoveRow:
    """One accepted move inside a round: the room goes from ``version - 1`` to ``version``."""

    code: str
    version: int
    status: str
    game_id: int | None
    seq: int
    seat: int
    action: dict[str, str]
    client_id: str | None
    now: datetime

    def stale(self) -> MoveNotApplied:
        return MoveNotApplied(f"room {self.code} is no longer at version {self.version - 1}")
