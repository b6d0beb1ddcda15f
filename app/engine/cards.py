"""Cards, ranks, suits and shoes: the one card parser of the project."""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field

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
    """One playing card. ``rank`` is 1 (ace) to 13 (king), 0 for a joker; ``suit`` is S, H, D, C or '*'.

    Cards are interned: the parser and the shoe hand out one object per card (``card``), so a server
    holding many games holds 53 cards, not a hundred per game; each knows its text, made once."""

    rank: int
    suit: str
    _text: str = field(default="", init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.rank == JOKER_RANK:
            if self.suit != JOKER_SUIT:
                raise CardParseError(f"a joker has no suit, got {self.suit!r}")
        elif not (1 <= self.rank <= 13) or self.suit not in SUITS:
            raise CardParseError(f"no such card: rank {self.rank!r}, suit {self.suit!r}")
        text = JOKER_TEXT if self.rank == JOKER_RANK else RANK_NAMES[self.rank - 1] + self.suit
        object.__setattr__(self, "_text", text)

    @property
    def is_joker(self) -> bool:
        return self.rank == JOKER_RANK

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``"10H"``, ``"QS"``, ``"AD"``, ``"JK"`` (case-insensitive); the error names the bad text."""
        if not isinstance(text, str):
            raise CardParseError(f"a card is written as text like '10H', got {text!r}")
        known = _BY_TEXT.get(text)
        if known is not None:
            return known
        cleaned = text.strip().upper()
        if cleaned == JOKER_TEXT:
            return JOKER
        rank = _RANK_BY_NAME.get(cleaned[:-1])
        suit = cleaned[-1:]
        if rank is None or suit not in SUITS:
            raise CardParseError(
                f"cannot read card {text!r}: expected a rank (A, 2-10, J, Q, K) and suit (S, H, D, C), or JK"
            )
        return card(rank, suit)

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Card({self._text!r})"


JOKER = Card(JOKER_RANK, JOKER_SUIT)
_INTERNED: dict[tuple[int, str], Card] = {(r, s): Card(r, s) for s in SUITS for r in range(1, 14)}
_INTERNED[(JOKER_RANK, JOKER_SUIT)] = JOKER
_BY_TEXT: dict[str, Card] = {str(c): c for c in _INTERNED.values()}


def card(rank: int, suit: str) -> Card:
    """The one object of this card (a new one is made only to raise the error of a card that cannot be)."""
    known = _INTERNED.get((rank, suit))
    return known if known is not None else Card(rank, suit)


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


DECK_SIZE = 13 * len(SUITS)
JOKERS_PER_DECK = 2


def shoe_size(decks: int, jokers: bool) -> int:
    """How many cards ``make_shoe`` deals from."""
    return decks * (DECK_SIZE + (JOKERS_PER_DECK if jokers else 0))


def rank_order(card: Card) -> tuple[int, int]:
    """Cards by rank, then suit (jokers first): the order melds and deadwood are listed in."""
    return (card.rank, -1 if card.rank == JOKER_RANK else SUITS.index(card.suit))


def hand_order(card: Card) -> tuple[bool, int, int]:
    """Cards by suit, then rank, jokers last: the order a hand is held in."""
    return (card.rank == JOKER_RANK, -1 if card.rank == JOKER_RANK else SUITS.index(card.suit), card.rank)


def make_shoe(decks: int, jokers: bool) -> list[Card]:
    """Every card of ``decks`` standard decks, two jokers per deck when ``jokers`` is on, in a fixed order."""
    shoe = [card(rank, suit) for _ in range(decks) for suit in SUITS for rank in range(1, 14)]
    if jokers:
        shoe.extend([JOKER] * (JOKERS_PER_DECK * decks))
    return shoe


def shuffled(cards: Iterable[Card], rng: random.Random) -> list[Card]:
    pile = list(cards)
    rng.shuffle(pile)
    return pile
