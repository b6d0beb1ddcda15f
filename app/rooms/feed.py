"""The current round's moves as everyone may see them (the spectators' face of each move's events), so that a
page that (re)connects shows what happened while it was away.

The store's log is their one source: a room fills its copy from the round's moves that loading replayed
from the log (``LoadedTable.round_moves``) whenever it loads or reloads its table, and appends only the
events of moves that came through its one transition (a commit here, or a move read from the log). So the
copy holds the whole round, however long, after a restart and on every process, and a hello reads it
without touching the store.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import orjson

from app.protocol import Welcome, encode
from app.store import ReplayedMove
from app.table import Table

from .render import event_fields, face

FEED_KINDS = frozenset({"draw", "discard", "go_out", "reshuffle"})

RoundKey = tuple[int | None, int] | None  # (the game, its round) the moves are of; None: no game in play


def round_key(table: Table) -> RoundKey:
    game = table.playing
    return None if game is None else (table.game_id, game.round)


def replayed_events(table: Table, replayed: Iterable[ReplayedMove]) -> list[Mapping[str, object]]:
    """The spectators' face of the events of moves replayed from the log. A move the server played
    (no client id) for a seat a person holds is marked ``auto``, as the follower marks one read from the
    log (judged by who holds the seat now: a person whose seat went to a bot since loses the mark)."""
    events: list[Mapping[str, object]] = []
    for move in replayed:
        seat = table.seats[move.seat] if 0 <= move.seat < len(table.seats) else None
        auto = move.client_id is None and seat is not None and not seat.is_bot
        events.extend(face(event, None, auto) for event in move.events)
    return events


class RoundMoves:
    """This round's public moves, oldest first: all of them (a round ends at the turn limit, so it is
    bounded; 800 moves at eight seats)."""

    def __init__(self, table: Table, replayed: Iterable[ReplayedMove] = ()) -> None:
        self.key: RoundKey = None
        self._moves: list[Mapping[str, object]] = []
        self._encoded: list[bytes] = []  # the first of ``_moves`` encoded, at a hello, and kept
        self.reset(table, replayed)

    def reset(self, table: Table, replayed: Iterable[ReplayedMove]) -> None:
        """The table as loaded from the store, and its round's moves as replayed from the log."""
        self.key = round_key(table)
        self._moves, self._encoded = [], []
        if self.key is not None:
            self.add(table, replayed_events(table, replayed))

    def add(self, table: Table, events: Iterable[Mapping[str, object]]) -> None:
        """The table as it now is, and the public face of the events that made it so (a new round starts
        afresh; a table that moved to another round or game without saying so forgets the old one's)."""
        key = round_key(table)
        if key != self.key:
            self.key = key
            self._clear()
        for event in events:
            if event.get("kind") == "round_start":
                self._clear()
            elif event.get("kind") in FEED_KINDS:
                self._moves.append(event)

    def _clear(self) -> None:
        self._moves, self._encoded = [], []

    def moves(self, table: Table) -> list[Mapping[str, object]]:
        """The moves of the table's current round (none if the round is not the one held)."""
        return list(self._moves) if self.key is not None and round_key(table) == self.key else []

    def welcome_text(self, welcome: Welcome, table: Table) -> str:
        """The text of ``welcome`` (made without moves) with the table's round's moves as its ``moves``,
        exactly as the protocol's model writes it (``tests/rooms/test_feed_store.py`` holds the two equal).
        Each move is encoded once, at the first hello that needs it, and kept: a hello at the round's 800th
        move joins the kept texts, it does not encode the round again."""
        if welcome.moves is not None:
            raise ValueError("the welcome's moves are the round's: make it without them")
        text = encode(welcome)
        if self.key is None or round_key(table) != self.key or not self._moves:
            return text
        for event in self._moves[len(self._encoded) :]:
            self._encoded.append(orjson.dumps(event_fields(event)))
        return f'{text[:-1]},"moves":[{b",".join(self._encoded).decode()}]}}'  # moves: Welcome's last field
