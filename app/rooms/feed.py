"""The current round's moves as everyone may see them (the spectators' face of each move's events), kept in
memory per table, so that a page that (re)connects shows what happened while it was away."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping

from app.table import Table

FEED_KINDS = frozenset({"draw", "discard", "go_out", "reshuffle"})
KEPT_MOVES = 300  # more than a round has (the turn limit ends one long before)

RoundKey = tuple[int | None, int] | None  # (the game, its round) the moves are of; None: no game in play


def round_key(table: Table) -> RoundKey:
    game = table.playing
    return None if game is None else (table.game_id, game.round)


class RoundMoves:
    """This round's public moves, oldest first (at most ``KEPT_MOVES``)."""

    def __init__(self) -> None:
        self.key: RoundKey = None
        self._moves: deque[Mapping[str, object]] = deque(maxlen=KEPT_MOVES)

    def add(self, table: Table, events: Iterable[Mapping[str, object]]) -> None:
        """The table as it now is, and the public face of the events that made it so (a new round starts
        afresh; a table that moved to another round or game without saying so forgets the old one's)."""
        key = round_key(table)
        if key != self.key:
            self.key = key
            self._moves.clear()
        for event in events:
            if event.get("kind") == "round_start":
                self._moves.clear()
            elif event.get("kind") in FEED_KINDS:
                self._moves.append(event)

    def moves(self, table: Table) -> list[Mapping[str, object]]:
        """The moves of the table's current round seen here (none if the round is not the one kept)."""
        return list(self._moves) if self.key is not None and round_key(table) == self.key else []
