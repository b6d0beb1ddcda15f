"""An independent brute-force oracle for the minimum penalty of a hand, written straight from RULES.md.

It shares nothing with ``app/engine/solver.py`` but ``Card`` and ``Options.points``:

1. Every sub-multiset of the hand with three or more cards is checked against the meld definitions
   (``meld_kinds``). Enumeration stops extending a partial choice only when its natural cards already
   rule out both a set and a run (they mix ranks *and* suits, or mix ranks while repeating one), which no
   added card can repair.
2. The best disjoint choice of those melds is an exhaustive memoised search over what is left of the
   hand: the first card left is either unmelded, or lies in one of the valid melds that fit in what is
   left. Costs compare as (penalty, unmelded cards), so among equal penalties the fewest unmelded cards.

Identical cards are interchangeable, so the hand is handled as a multiset of card kinds: equal cards
(same rank and suit, from several decks) are one kind, every joker is one kind, and every card of the
wild rank is one kind whatever its suit (each of them is wild in any meld, may stand as itself only in a
place a wild may fill anyway, counts as a natural card for the natural-in-every-meld option, and costs the
same points). That only removes repeated work; every distinct choice of cards is still examined.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from app.engine.cards import Card
from app.engine.options import Options

_FIELD = 5  # bits per card kind in a packed multiset: counts up to 15 plus a guard bit
_GUARD = 1 << (_FIELD - 1)
_DEADWOOD_BITS = 6  # packed cost = penalty << 6 | unmelded cards


def _wild_value(wild_rank: int | str) -> int:
    if isinstance(wild_rank, int):
        return wild_rank
    names = {"A": 1, "J": 11, "Q": 12, "K": 13}
    return names.get(wild_rank.upper()) or int(wild_rank)


def is_wild(card: Card, wild_rank: int | str) -> bool:
    """A joker, or a card of the round's wild rank."""
    return card.is_joker or card.rank == _wild_value(wild_rank)


def meld_kinds(cards: Sequence[Card], wild_rank: int | str, options: Options) -> set[str]:
    """The kinds ('set', 'run') the cards form as one meld under RULES.md; empty if they are no meld."""
    wild = _wild_value(wild_rank)
    if len(cards) < 3:
        return set()
    if options.natural_in_every_meld and all(card.is_joker for card in cards):
        return set()  # a card of the wild rank is natural (it may stand as itself); a joker is not
    naturals = [card for card in cards if not (card.is_joker or card.rank == wild)]
    kinds: set[str] = set()
    # Set: every card is of one rank, or wild. Any length.
    if len({card.rank for card in naturals}) <= 1:
        kinds.add("set")
    # Run: one suit, consecutive places, no rank twice, 3 to 13 cards; wilds fill any place.
    # Places are 1 (A) .. 13 (K), and 14 (A again) with ace high or low; no wrap-around (K-A-2).
    length = len(cards)
    top = 14 if options.ace_high_low else 13
    ranks = [card.rank for card in naturals]
    if length <= 13 and len({card.suit for card in naturals}) <= 1 and len(set(ranks)) == len(ranks):
        for low in range(1, top - length + 2):
            window = range(low, low + length)
            if all(rank in window or (rank == 1 and options.ace_high_low and 14 in window) for rank in ranks):
                kinds.add("run")  # the naturals take their places, the wilds fill the other ones
                break
    return kinds


def is_valid_meld(cards: Sequence[Card], wild_rank: int | str, options: Options) -> bool:
    return bool(meld_kinds(cards, wild_rank, options))


def run_in_table_order(cards: Sequence[Card], wild_rank: int | str, options: Options) -> bool:
    """True if the run's cards, as listed, fill consecutive places (naturals in their own places)."""
    top = 14 if options.ace_high_low else 13
    length = len(cards)
    for low in range(1, top - length + 2):
        if all(
            is_wild(card, wild_rank)
            or card.rank == low + offset
            or (card.rank == 1 and options.ace_high_low and low + offset == 14)
            for offset, card in enumerate(cards)
        ):
            return True
    return False


class Oracle:
    """Exhaustive search over one hand; ``solve`` also answers any part of the hand (shared memo)."""

    def __init__(self, cards: Iterable[Card], wild_rank: int | str, options: Options) -> None:
        self.wild = _wild_value(wild_rank)
        self.options = options
        counts: Counter[Card] = Counter()
        for card in cards:
            # one representative per kind: the wild-rank cards are all the spade of that rank
            counts[Card(self.wild, "S") if card.rank == self.wild else card] += 1
        # wild kinds last: the search settles the first card left, and a natural card lies in few melds
        self.kinds = sorted(counts, key=lambda card: (is_wild(card, self.wild), card))
        self.counts = [counts[kind] for kind in self.kinds]
        assert sum(self.counts) < 1 << _DEADWOOD_BITS and max(self.counts, default=0) < _GUARD, "hand too big"
        self.points = [options.points(kind) for kind in self.kinds]
        self.guards = sum(_GUARD << (_FIELD * i) for i in range(len(self.kinds)))
        self.full = self.pack(self.counts)
        self.melds_by_first: list[list[int]] = [[] for _ in self.kinds]
        self.meld_count = 0
        self._enumerate(0, [], [0] * len(self.kinds), frozenset(), frozenset(), 0)
        self.memo: dict[int, int] = {0: 0}

    def pack(self, counts: Sequence[int]) -> int:
        return sum(count << (_FIELD * i) for i, count in enumerate(counts))

    def pack_cards(self, cards: Iterable[Card]) -> int:
        """The packed multiset of some of the hand's cards."""
        counts = [0] * len(self.kinds)
        for card in cards:
            kind = Card(self.wild, "S") if card.rank == self.wild else card
            counts[self.kinds.index(kind)] += 1
        return self.pack(counts)

    def _enumerate(
        self,
        index: int,
        chosen: list[Card],
        counts: list[int],
        ranks: frozenset[int],
        suits: frozenset[str],
        naturals: int,
    ) -> None:
        """Every sub-multiset of the hand, pruning only partial choices that no card can make a meld."""
        if len(ranks) > 1 and (len(suits) > 1 or len(ranks) < naturals):
            return  # neither a set (two ranks) nor a run (two suits, or a rank twice)
        if index == len(self.kinds):
            if len(chosen) >= 3 and is_valid_meld(chosen, self.wild, self.options):
                first = next(i for i, count in enumerate(counts) if count)
                self.melds_by_first[first].append(self.pack(counts))
                self.meld_count += 1
            return
        kind = self.kinds[index]
        self._enumerate(index + 1, chosen, counts, ranks, suits, naturals)
        natural = not is_wild(kind, self.wild)
        if natural:
            ranks, suits = ranks | {kind.rank}, suits | {kind.suit}
        for take in range(1, self.counts[index] + 1):
            counts[index] = take
            self._enumerate(
                index + 1, chosen + [kind] * take, counts, ranks, suits, naturals + take * natural
            )
        counts[index] = 0

    def solve(self, state: int | None = None) -> int:
        """Packed best cost (penalty << 6 | unmelded cards) of the packed multiset ``state``."""
        if state is None:
            state = self.full
        found = self.memo.get(state)
        if found is not None:
            return found
        first = ((state & -state).bit_length() - 1) // _FIELD
        # the first card left is unmelded ...
        best = (self.points[first] << _DEADWOOD_BITS | 1) + self.solve(state - (1 << (_FIELD * first)))
        # ... or it lies in a meld made of cards that are left
        with_guards = state | self.guards
        for meld in self.melds_by_first[first]:
            if (with_guards - meld) & self.guards == self.guards:
                cost = self.solve(state - meld)
                if cost < best:
                    best = cost
        self.memo[state] = best
        return best

    def best(self, cards: Iterable[Card] | None = None) -> tuple[int, int]:
        """(minimum penalty, fewest unmelded cards among arrangements with that penalty)."""
        cost = self.solve(None if cards is None else self.pack_cards(cards))
        return cost >> _DEADWOOD_BITS, cost & ((1 << _DEADWOOD_BITS) - 1)


def oracle_best(cards: Iterable[Card], wild_rank: int | str, options: Options) -> tuple[int, int]:
    """(minimum penalty, fewest unmelded cards at that penalty) of the hand."""
    return Oracle(cards, wild_rank, options).best()


def oracle_min_penalty(cards: Iterable[Card], wild_rank: int | str, options: Options) -> int:
    return oracle_best(cards, wild_rank, options)[0]


def oracle_go_out_discards(cards: Sequence[Card], wild_rank: int | str, options: Options) -> set[Card]:
    """The cards c of the hand such that hand - c can be wholly melded (no unmelded card at all: with
    joker_points 0 an unmelded joker costs nothing, but the player has still not gone out)."""
    oracle = Oracle(cards, wild_rank, options)
    result = set()
    for card in set(cards):
        rest = list(cards)
        rest.remove(card)
        if oracle.best(rest) == (0, 0):
            result.add(card)
    return result


def plain_min_penalty(cards: Iterable[Card], wild_rank: int | str, options: Options) -> int:
    """The textbook brute force that other servers use: test every one of the 2^n subsets for a meld,
    then take the best disjoint choice. No pruning, no merging of identical cards: the speed baseline."""
    hand = list(cards)
    n = len(hand)
    melds_by_low: list[list[int]] = [[] for _ in range(n)]
    for mask in range(1, 1 << n):
        if mask.bit_count() >= 3 and is_valid_meld(
            [hand[i] for i in range(n) if mask >> i & 1], wild_rank, options
        ):
            melds_by_low[(mask & -mask).bit_length() - 1].append(mask)
    points = [options.points(card) for card in hand]
    memo: dict[int, int] = {0: 0}

    def best(mask: int) -> int:
        found = memo.get(mask)
        if found is not None:
            return found
        low = mask & -mask
        i = low.bit_length() - 1
        result = points[i] + best(mask ^ low)
        for meld in melds_by_low[i]:
            if meld & mask == meld:
                result = min(result, best(mask ^ meld))
        memo[mask] = result
        return result

    return best((1 << n) - 1)
