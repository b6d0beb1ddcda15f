"""One table as a frozen value: its lifecycle status, seats, version, options and current game.

A ``Table`` is what the store holds for a room, read back into memory; commands (``commands.py``) make the
next one. Nothing here changes in place.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from app.engine import GameState, Options

AUTO_LEVEL = "normal"  # how the server plays a turn for a person (timer ran out, or away)


@dataclass(frozen=True, slots=True)
class Pause:
    """What is known of the pause before the current round's first turn (see ``pause.py``): the seats
    whose players pressed Continue, and when the pause ended early because every present player had.
    Kept in memory (and told to other processes), not in the store: after a restart the pause simply runs
    its countdown from the stored end of the last round."""

    continued: frozenset[int] = frozenset()
    ended: datetime | None = None


NO_PAUSE = Pause()


class RoomStatus(StrEnum):
    LOBBY = "lobby"
    PLAYING = "playing"
    FINISHED = "finished"


TRANSITIONS: dict[RoomStatus, frozenset[RoomStatus]] = {
    RoomStatus.LOBBY: frozenset({RoomStatus.PLAYING}),
    RoomStatus.PLAYING: frozenset({RoomStatus.FINISHED, RoomStatus.LOBBY}),  # the lobby: the host ended it
    RoomStatus.FINISHED: frozenset({RoomStatus.PLAYING, RoomStatus.LOBBY}),
}


@dataclass(frozen=True, slots=True)
class Claim:
    """A person asking for a bot's seat: ``approved`` (by the host, or because the seat was theirs) means the
    seat passes to them at the next moment the rules allow (between rounds, between games, in the lobby)."""

    name: str
    token_hash: str
    approved: bool = False
    origin: str | None = None  # where the asker asked from (``origins.origin_of``), never the address itself


@dataclass(frozen=True, slots=True)
class Seat:
    index: int
    name: str
    is_bot: bool = False
    bot_level: str | None = None
    token_hash: str | None = None
    is_program: bool = False  # a person's seat played by their own program (see docs/protocol.md)
    former_token_hash: str | None = None  # a bot's seat: the token of the person it was handed from
    claim: Claim | None = None  # a bot's seat: the one request for it (pending, or approved and waiting)
    practice: bool = False  # a person's seat played for practice: its games are left out of the standings
    avatar: str | None = None  # a person's seat: the face they picked (``avatars.AVATARS``); None: none yet
    origin: str | None = (
        None  # a person's seat: where they joined from (``origins.origin_of``); None: unknown
    )
    missed: int = 0  # a paced table: the person's turns in a row the server played as their time ran out


@dataclass(frozen=True, slots=True)
class Table:
    """A room as the store holds it. ``turn_started``: when the seat to act got the turn (the commit time of
    the last discard, or of the game's start); ``last_move_at``: the commit time of the last move. Both are
    read back from the store, so timers survive a restart or a move to another process.

    ``play_version``: the version of the last change that matters to a move (the game's start or its last
    move; the store keeps it as the game's version). A move made against any version from there on means
    what it meant when it was made: seat requests, declines, presence and the host role never make it stale.

    ``host_returns_to``: the token hash of the host whose role passed on because they were gone; the role
    returns to them when they are back, and meanwhile their seat cannot be removed. Kept in the store.

    ``origin_salt``: this table's secret for ``origins.origin_of`` (None: a table from before origins)."""

    code: str
    status: RoomStatus
    version: int
    host_seat: int
    seat_count: int
    options: Options
    seats: tuple[Seat, ...]
    turn_started: datetime
    last_move_at: datetime
    game: GameState | None = None
    game_id: int | None = None
    game_number: int | None = None
    game_seed: int = 0
    pause: Pause = NO_PAUSE
    game_public_id: str | None = None  # the game's id in public URLs (random; the store's id stays inside)
    play_version: int = 0
    host_returns_to: str | None = None
    origin_salt: str | None = None

    @property
    def playing(self) -> GameState | None:
        """The game being played (None in the lobby, and once the game is over)."""
        if self.status is not RoomStatus.PLAYING or self.game is None or self.game.is_over:
            return None
        return self.game

    @property
    def game_ended(self) -> bool:
        """The table's last game was ended by the host before it was over (``commands.end_game``): the table
        is back in the lobby with that game unfinished. A game played to its end is over instead."""
        return self.status is RoomStatus.LOBBY and self.game is not None and not self.game.is_over

    def holder(self, token_hash: str) -> Seat | None:
        """The seat this token plays, if any (a token never holds two seats of one table)."""
        return next((s for s in self.seats if same_token(s.token_hash, token_hash)), None)

    def claim_of(self, token_hash: str) -> Seat | None:
        """The bot's seat this token has asked for, if any (a token asks for one seat at a time)."""
        return next(
            (s for s in self.seats if s.claim is not None and same_token(s.claim.token_hash, token_hash)),
            None,
        )

    def former_of(self, token_hash: str) -> Seat | None:
        """The bot's seat this token's person played before it was handed to the bot."""
        return next((s for s in self.seats if s.is_bot and same_token(s.former_token_hash, token_hash)), None)

    def between_rounds(self) -> bool:
        """No move made yet in the current round (or no game on): a seat may change hands."""
        if self.status is not RoomStatus.PLAYING:
            return True
        return self.game is not None and not self.game.round_log


def same_token(stored: str | None, candidate: str) -> bool:
    """Token hashes compared in constant time (as everywhere tokens are matched)."""
    return stored is not None and hmac.compare_digest(stored, candidate)
