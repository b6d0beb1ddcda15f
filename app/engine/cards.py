"""Cards, ranks, suits and shoes: the one card parser of the project."""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass

from .errors import CardParseError

RANK_NAMES: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: tuple[str, ...] = ("S", "H", "D", "C")
JOKER_TEXT = "JK"
JOKER_RANK = 0
JOKER_SUIT = "*"

_RANK_BY_NAME = {name: index + 1 for index, name in enumerate(RANK_NAMES)}
_RANK_BY_NAME["T"] = 10  # a common short form of 10


@dataclass(frozen=True, order=True, slots=True)
class Card:
    """One playing card. ``rank`` is 1 (ace) to 13 (king), 0 for a joker; ``suit`` is S, H, D, C or '*'."""

    rank: int
    suit: str

    def __post_init__(self) -> None:
        if self.rank == JOKER_RANK:
            if self.suit != JOKER_SUIT:
                raise CardParseError(f"a joker has no suit, got {self.suit!r}")
        elif not (1 <= self.rank <= 13) or self.suit not in SUITS:
            raise CardParseError(f"no such card: rank {self.rank!r}, suit {self.suit!r}")

    @property
    def is_joker(self) -> bool:
        return self.rank == JOKER_RANK

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``"10H"``, ``"QS"``, ``"AD"``, ``"JK"`` (case-insensitive); the error names the bad text."""
        if not isinstance(text, str):
            raise CardParseError(f"a card is written as text like '10H', got {text!r}")
        cleaned = text.strip().upper()
        if cleaned == JOKER_TEXT:
            return JOKER
        rank = _RANK_BY_NAME.get(cleaned[:-1])
        suit = cleaned[-1:]
        if rank is None or suit not in SUITS:
            raise CardParseError(
                f"cannot read card {text!r}: expected a rank (A, 2-10, J, Q, K) and suit (S, H, D, C), or JK"
            )
        return cls(rank, suit)

    def __str__(self) -> str:
        if self.rank == JOKER_RANK:
            return JOKER_TEXT
        return RANK_NAMES[self.rank - 1] + self.suit

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"


JOKER = Card(JOKER_RANK, JOKER_SUIT)


def as_card(card: Card | str) -> Card:
    """Accept a Card or its text."""
    return card if isinstance(card, Card) else Card.parse(card)


def as_cards(cards: Iterable[Card | str]) -> tuple[Card, ...]:
    return tuple(as_card(card) for card in cards)


def rank_from_name(name: str) -> int:
    """``"J"`` -> 11; raises CardParseError for anything that is not a rank."""
    rank = _RANK_BY_NAME.get(str(name).strip().upper())
    if rank is None:
        raise CardParseError(f"no such rank {name!r}: expected A, 2-10, J, Q or K")
    return rank


def rank_name(rank: int) -> str:
    return RANK_NAMES[rank - 1]


def make_shoe(decks: int, jokers: bool) -> list[Card]:
    """Every card of ``decks`` standard decks, two jokers per deck when ``jokers`` is on, in a fixed order."""
    shoe = [Card(rank, suit) for _ in range(decks) for suit in SUITS for rank in range(1, 14)]
    if jokers:
        shoe.extend([JOKER] * (2 * decks))
    return shoe


def shuffled(cards: Iterable[Card], rng: random.Random) -> list[Card]:
    pile = list(cards)
    rng.shuffle(pile)
    return pile
