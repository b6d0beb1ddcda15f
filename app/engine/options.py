"""House-rule options of one game (RULES.md defaults), validated, and the card values they imply."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, Literal, get_args

from .cards import DECK_SIZE, Card, shoe_size
from .errors import OptionsError

# The one source of the seat bounds: a table has MIN_PLAYERS to MAX_PLAYERS seats (the protocol, the REST
# bodies, the table core, the JSON Schema and the client all take them from here).
MIN_PLAYERS = 2
MAX_PLAYERS = 8
ROUNDS = 11
MAX_DECKS = 4
FACE_VALUES = ("ten", "rank")
TURN_TIMERS = (0, 30, 60, 120)
# A table's pace: "live" (played at one sitting: people away are played by the server after a grace period)
# or the hours each turn may take (played over days: nobody is played for until their turn's time runs out).
LIVE = "live"
PACES: tuple[str | int, ...] = (LIVE, 1, 8, 24, 72)
BotLevel = Literal["easy", "normal", "hard", "random"]
BOT_LEVELS: tuple[str, ...] = get_args(BotLevel)
DEFAULT_BOT_LEVEL: BotLevel = "normal"  # a bot added without a level


def cards_dealt(round_number: int) -> int:
    """Round n deals n + 2 cards."""
    return round_number + 2


def wild_rank(round_number: int) -> int:
    """The rank with as many pips as cards dealt (3 in round 1 ... K in round 11)."""
    return round_number + 2


def default_decks(players: int) -> int:
    """1 deck for 2 players, 2 for 3-4, then the smallest count that leaves a stock in round 11."""
    if players <= 2:
        return 1
    decks = 2
    while DECK_SIZE * decks < 13 * players + 12:
        decks += 1
    return decks


@dataclass(frozen=True, slots=True)
class Options:
    """Per-table house rules; ``decks`` None means 'by player count'. ``turn_timer`` is seconds, 0 = off."""

    decks: int | None = None
    jokers: bool = False
    ace_high_low: bool = False
    face_values: str = "ten"
    joker_points: int = 15
    natural_in_every_meld: bool = False
    turn_timer: int = 0
    hints: bool = False  # a player may ask the server for the discard that leaves the fewest points
    pace: str | int = LIVE  # "live", or the hours a turn may take (``PACES``)

    def __post_init__(self) -> None:
        if self.decks is not None and (
            isinstance(self.decks, bool)
            or not isinstance(self.decks, int)
            or not 1 <= self.decks <= MAX_DECKS
        ):
            raise OptionsError(
                f"decks must be 1 to {MAX_DECKS} (or empty for 'by player count'), got {self.decks!r}"
            )
        for name in ("jokers", "ace_high_low", "natural_in_every_meld", "hints"):
            if not isinstance(getattr(self, name), bool):
                raise OptionsError(f"{name} must be true or false, got {getattr(self, name)!r}")
        if self.face_values not in FACE_VALUES:
            raise OptionsError(f"face_values must be 'ten' or 'rank', got {self.face_values!r}")
        if (
            isinstance(self.joker_points, bool)
            or not isinstance(self.joker_points, int)
            or not (0 <= self.joker_points <= 50)
        ):
            raise OptionsError(f"joker_points must be a whole number from 0 to 50, got {self.joker_points!r}")
        if self.turn_timer not in TURN_TIMERS or isinstance(self.turn_timer, bool):
            raise OptionsError(f"turn_timer must be one of {TURN_TIMERS} seconds, got {self.turn_timer!r}")
        if isinstance(self.pace, bool) or not isinstance(self.pace, str | int) or self.pace not in PACES:
            raise OptionsError(f"pace must be 'live' or one of 1, 8, 24, 72 hours a turn, got {self.pace!r}")

    @property
    def paced(self) -> bool:
        """Played at its own pace: each turn may take ``pace`` hours, and nobody away is played for before."""
        return self.pace != LIVE

    def deck_count(self, players: int) -> int:
        """Decks used for ``players`` seats; raises OptionsError if round 11 would leave no stock."""
        check_players(players)
        decks = self.decks if self.decks is not None else default_decks(players)
        if shoe_size(decks, self.jokers) < 13 * players + 2:
            raise OptionsError(
                f"{decks} deck(s) cannot deal 13 cards to {players} players and keep a stock; "
                f"choose more decks or leave the count empty"
            )
        return decks

    def points(self, card: Card) -> int:
        """Penalty of one unmelded card under these options."""
        if card.rank == 0:
            return self.joker_points
        if card.rank == 1:
            return 15 if self.ace_high_low else 1
        if card.rank <= 10:
            return card.rank
        return card.rank if self.face_values == "rank" else 10

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> Options:
        """Build from plain JSON; unknown keys are refused with their names."""
        data = dict(data or {})
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise OptionsError(f"unknown option(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        return cls(**data)


def check_players(players: int) -> None:
    if isinstance(players, bool) or not isinstance(players, int) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise OptionsError(f"a game has {MIN_PLAYERS} to {MAX_PLAYERS} players, got {players!r}")
