"""The one meld solver: the arrangement of a hand that leaves the fewest penalty points.

How it works. Wild cards (the round's wild rank and jokers) can stand anywhere, so the search only
decides what happens to the *natural* cards: each is deadwood or part of a meld "core" (natural cards of
one rank, or of one suit with distinct ranks) that needs a known number of wilds to become a valid meld.
A memoised depth-first search over (natural cards left, wilds left, room for spare wilds) picks the
cheapest disjoint cores within the wild budget. Spare wilds then join a set (sets take any number), extend
a run (up to 13 cards), form a meld of their own (three or more), or stay as the cheapest deadwood.
Costs are compared as (penalty, unmelded cards), so among equal penalties more melded cards wins, and
the cards are sorted first so the answer never depends on their order.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .cards import Card, as_cards, rank_from_name, rank_order
from .options import Options

_UNLIMITED = 15  # more spare-wild room than any hand can use
_COUNT_BITS = (
    10  # cost = penalty << 10 | unmelded cards << 5 | melds: fewer points, then more melded, then fewer melds
)
_UNMELDED = 1 << 5
_IMPOSSIBLE = 1 << 40


@dataclass(frozen=True, slots=True)
class Meld:
    """A set or a run, its cards in table order (a run from low to high, wilds in the places they fill)."""

    kind: str
    cards: tuple[Card, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "cards": [str(card) for card in self.cards]}


@dataclass(frozen=True, slots=True)
class Arrangement:
    """The best arrangement of a hand: its melds, the unmelded cards, and their penalty."""

    melds: tuple[Meld, ...]
    deadwood: tuple[Card, ...]
    penalty: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "melds": [meld.to_dict() for meld in self.melds],
            "deadwood": [str(card) for card in self.deadwood],
            "penalty": self.penalty,
        }


@dataclass(frozen=True, slots=True)
class _Core:
    mask: int
    need: int  # wilds needed to make it a valid meld
    room: int  # spare wilds it can take on top of that
    kind: str
    members: tuple[tuple[int, int], ...]  # (position, natural index), positions increasing for a run


def _wild_rank_value(wild_rank: int | str) -> int:
    return (
        wild_rank
        if isinstance(wild_rank, int) and not isinstance(wild_rank, bool)
        else rank_from_name(str(wild_rank))
    )


class _Search:
    def __init__(self, cards: tuple[Card, ...], wild: int, options: Options) -> None:
        self.options = options
        self.wild = wild
        ordered = sorted(cards, key=rank_order)
        self.wilds = sorted(
            (c for c in ordered if c.rank == wild or c.is_joker),
            key=lambda c: (options.points(c), rank_order(c)),
        )
        naturals = [c for c in ordered if c.rank != wild and not c.is_joker]
        self.wild_count = len(self.wilds)
        self.wild_rank_cards = sum(1 for c in self.wilds if not c.is_joker)
        # cheapest_wilds[n]: cost of leaving the n cheapest wilds unmelded
        self.cheapest_wilds = [0]
        for card in self.wilds:
            self.cheapest_wilds.append(
                self.cheapest_wilds[-1] + (options.points(card) << _COUNT_BITS) + _UNMELDED
            )
        cores = self._cores(naturals)
        used = 0
        for core in cores:
            used |= core.mask
        # A natural card in no core is deadwood whatever else happens: take it out of the search.
        self.forced = [c for i, c in enumerate(naturals) if not used >> i & 1]
        self.naturals = [c for i, c in enumerate(naturals) if used >> i & 1]
        remap = {old: new for new, old in enumerate(i for i in range(len(naturals)) if used >> i & 1)}
        self.by_low: list[list[_Core]] = [[] for _ in self.naturals]
        for core in cores:
            members = tuple((pos, remap[old]) for pos, old in core.members)
            mask = 0
            for _, new in members:
                mask |= 1 << new
            moved = _Core(mask, core.need, core.room, core.kind, members)
            self.by_low[(mask & -mask).bit_length() - 1].append(moved)
        self.values = [(options.points(c) << _COUNT_BITS) + _UNMELDED for c in self.naturals]
        self.memo: dict[int, int] = {}

    def _cores(self, naturals: list[Card]) -> list[_Core]:
        budget = self.wild_count
        cores: list[_Core] = []
        by_rank: dict[int, list[int]] = {}
        by_suit: dict[str, list[int]] = {}
        for index, card in enumerate(naturals):
            by_rank.setdefault(card.rank, []).append(index)
            by_suit.setdefault(card.suit, []).append(index)
        for indices in by_rank.values():
            count = len(indices)
            for subset in range(1, 1 << count):
                size = subset.bit_count()
                need = max(0, 3 - size)
                if need <= budget:
                    chosen = [indices[bit] for bit in range(count) if subset >> bit & 1]
                    mask = 0
                    for index in chosen:
                        mask |= 1 << index
                    members = tuple((naturals[index].rank, index) for index in chosen)
                    cores.append(_Core(mask, need, _UNLIMITED, "set", members))
        for indices in by_suit.values():
            items: list[tuple[int, int]] = []
            for index in indices:
                rank = naturals[index].rank
                items.append((rank, index))
                if rank == 1 and self.options.ace_high_low:
                    items.append((14, index))
            items.sort()
            self._runs_from(items, budget, cores)
        return cores

    def _runs_from(self, items: list[tuple[int, int]], budget: int, out: list[_Core]) -> None:
        """Every run core: two or more naturals of one suit, distinct positions, gaps the wilds can fill."""
        seen: set[tuple[int, int, int]] = set()
        for i, (pos, index) in enumerate(items):
            self._extend_run(items, budget, seen, out, pos, pos, 1, 1 << index, ((pos, index),), i + 1)

    def _extend_run(
        self,
        items: list[tuple[int, int]],
        budget: int,
        seen: set[tuple[int, int, int]],
        out: list[_Core],
        start: int,
        last: int,
        count: int,
        mask: int,
        members: tuple[tuple[int, int], ...],
        nxt: int,
    ) -> None:
        """Grow a run from ``members`` with later naturals (a method, not a closure: no reference cycle
        is left behind for the cycle collector on every search)."""
        for j in range(nxt, len(items)):
            pos, index = items[j]
            if pos == last or mask >> index & 1:
                continue
            span = pos - start + 1
            if span > 13 or span - count - 1 > budget:
                break
            new_mask = mask | 1 << index
            new_members = members + ((pos, index),)
            length = max(span, 3)
            need = length - count - 1
            if need <= budget and (new_mask, need, length) not in seen:
                seen.add((new_mask, need, length))
                out.append(_Core(new_mask, need, 13 - length, "run", new_members))
            self._extend_run(items, budget, seen, out, start, pos, count + 1, new_mask, new_members, j + 1)

    def leftover(self, spare: int, room: int) -> int:
        if spare <= room:
            return 0
        extra = spare - room
        if extra >= 3 and (not self.options.natural_in_every_meld or self.wild_rank_cards > 0):
            return 1  # one more meld, made of spare wilds
        return self.cheapest_wilds[extra]

    def best(self, mask: int, wilds: int, room: int) -> int:
        if mask == 0:
            return self.leftover(wilds, room)
        key = ((mask << 5 | wilds) << 5) | room
        found = self.memo.get(key)
        if found is not None:
            return found
        low = mask & -mask
        i = low.bit_length() - 1
        result = self.values[i] + self.best(mask ^ low, wilds, room)
        for core in self.by_low[i]:
            if core.need <= wilds and core.mask & mask == core.mask:
                spare_room = min(room + core.room, self.wild_count)
                value = self.best(mask ^ core.mask, wilds - core.need, spare_room) + 1
                if value < result:
                    result = value
        self.memo[key] = result
        return result

    def best_with_free_card(self, mask: int, wilds: int, room: int) -> int:
        """Like ``best``, but exactly one card (natural or wild) is set aside at no cost: the discard."""
        if mask == 0:
            return self.leftover(wilds - 1, room) if wilds else _IMPOSSIBLE
        key = -(((mask << 5 | wilds) << 5) | room) - 1
        cached = self.memo.get(key)
        if cached is not None:
            return cached
        low = mask & -mask
        i = low.bit_length() - 1
        result = min(
            self.best(mask ^ low, wilds, room),
            self.values[i] + self.best_with_free_card(mask ^ low, wilds, room),
        )
        for core in self.by_low[i]:
            if core.need <= wilds and core.mask & mask == core.mask:
                spare_room = min(room + core.room, self.wild_count)
                value = self.best_with_free_card(mask ^ core.mask, wilds - core.need, spare_room) + 1
                if value < result:
                    result = value
        self.memo[key] = result
        return result

    def can_go_out(self) -> bool:
        """Whether some single discard leaves every other card melded."""
        full = (1 << len(self.naturals)) - 1
        if len(self.forced) > 1:
            return False
        if self.forced:
            return self.best(full, self.wild_count, 0) < _UNMELDED
        return self.best_with_free_card(full, self.wild_count, 0) < _UNMELDED

    def go_out_cards(self) -> list[Card]:
        """Every distinct card whose discard leaves the rest melded. The searches for the hand less one
        card share this search's cores and memo: a natural card is left out by leaving its bit out."""
        if not self.can_go_out():
            return []
        if self.forced:
            return [self.forced[0]]
        full = (1 << len(self.naturals)) - 1
        found: list[Card] = []
        for i, card in enumerate(self.naturals):
            if card not in found and self.best(full ^ (1 << i), self.wild_count, 0) < _UNMELDED:
                found.append(card)
        for card in dict.fromkeys(self.wilds):
            if self._rest_melds_without_wild(card, full):
                found.append(card)
        return sorted(found, key=rank_order)

    def _rest_melds_without_wild(self, card: Card, full: int) -> bool:
        lone_natural_wild = (
            self.options.natural_in_every_meld and not card.is_joker and self.wild_rank_cards == 1
        )
        if lone_natural_wild:  # the spare-wild rule depends on this card: search the smaller hand afresh
            rest = list(self.naturals) + list(self.forced) + list(self.wilds)
            rest.remove(card)
            smaller = _Search(tuple(rest), self.wild, self.options)
            return (
                not smaller.forced
                and smaller.best((1 << len(smaller.naturals)) - 1, smaller.wild_count, 0) < _UNMELDED
            )
        return self.best(full, self.wild_count - 1, 0) < _UNMELDED

    def solve(self) -> Arrangement:
        full = (1 << len(self.naturals)) - 1
        total = self.best(full, self.wild_count, 0)
        chosen: list[_Core] = []
        deadwood = list(self.forced)
        mask, wilds, room = full, self.wild_count, 0
        while mask:
            target = self.best(mask, wilds, room)
            low = mask & -mask
            i = low.bit_length() - 1
            if self.values[i] + self.best(mask ^ low, wilds, room) == target:
                deadwood.append(self.naturals[i])
                mask ^= low
                continue
            for core in self.by_low[i]:
                if core.need <= wilds and core.mask & mask == core.mask:
                    spare_room = min(room + core.room, self.wild_count)
                    if self.best(mask ^ core.mask, wilds - core.need, spare_room) + 1 == target:
                        chosen.append(core)
                        mask, wilds, room = mask ^ core.mask, wilds - core.need, spare_room
                        break
            else:  # pragma: no cover - the memo always holds the choice that made the target
                raise AssertionError("solver reconstruction failed")
        melds, wild_deadwood = self._build(chosen, wilds, room)
        deadwood.extend(wild_deadwood)
        penalty = sum(self.options.points(c) for c in deadwood)
        forced_cost = sum((self.options.points(c) << _COUNT_BITS) + _UNMELDED for c in self.forced)
        assert (penalty << _COUNT_BITS) + len(deadwood) * _UNMELDED + len(melds) == total + forced_cost
        deadwood.sort(key=rank_order)
        return Arrangement(tuple(melds), tuple(deadwood), penalty)

    def _build(self, chosen: list[_Core], spare: int, room: int) -> tuple[list[Meld], list[Card]]:
        """Hand out the wilds. Spare ones join sets (any number) then runs (up to 13 cards), or make a
        meld of their own when three or more are left over; otherwise the cheapest stay as deadwood."""
        rule_ok = not self.options.natural_in_every_meld or self.wild_rank_cards > 0
        own = spare > room and spare >= 3 and rule_ok
        left_out = spare - room if spare > room and not own else 0
        deadwood = self.wilds[:left_out]
        pool = list(reversed(self.wilds[left_out:]))  # the dearest wilds first
        own_cards: list[Card] = []
        if own:
            own_cards = pool[-spare:]
            del pool[-spare:]
            if self.options.natural_in_every_meld and all(c.is_joker for c in own_cards):
                swap = next(i for i, c in enumerate(pool) if not c.is_joker)
                pool[swap], own_cards[0] = own_cards[0], pool[swap]
        groups: list[tuple[_Core, list[Card]]] = []
        for core in chosen:
            groups.append((core, [pool.pop(0) for _ in range(core.need)]))
        to_place = len(pool)
        for kind in ("set", "run"):
            for core, fill in groups:
                if core.kind == kind and to_place:
                    take = to_place if kind == "set" else min(to_place, core.room)
                    fill.extend(pool.pop(0) for _ in range(take))
                    to_place -= take
        assert not pool
        melds = [self._meld(core, fill) for core, fill in groups]
        if own_cards:
            melds.append(Meld("set", tuple(sorted(own_cards, key=rank_order))))
        return melds, deadwood

    def _meld(self, core: _Core, fill: list[Card]) -> Meld:
        if core.kind == "set":
            naturals = [self.naturals[index] for _, index in core.members]
            return Meld("set", tuple(naturals + sorted(fill, key=rank_order)))
        high = 14 if self.options.ace_high_low else 13
        placed = {pos: self.naturals[index] for pos, index in core.members}
        bottom, top = min(placed), max(placed)
        slots = [p for p in range(bottom, top + 1) if p not in placed]
        while len(slots) < len(fill):
            if top < high and top + 1 - bottom < 13:
                top += 1
                slots.append(top)
            else:
                bottom -= 1
                slots.append(bottom)
        suit = self.naturals[core.members[0][1]].suit
        wilds = sorted(fill, key=rank_order)
        for slot in sorted(slots):
            # a card of the wild rank goes to its own place when that place is free
            own = next((w for w in wilds if w.rank == slot and w.suit == suit), None)
            card = own if own is not None else wilds[-1]
            wilds.remove(card)
            placed[slot] = card
        return Meld("run", tuple(placed[p] for p in sorted(placed)))


def best_arrangement(
    cards: Iterable[Card | str], wild_rank: int | str, options: Options | None = None
) -> Arrangement:
    """The arrangement with the least penalty (ties: more cards melded), for any hand of up to 14+ cards."""
    return _Search(as_cards(cards), _wild_rank_value(wild_rank), options or Options()).solve()


def min_penalty(cards: Iterable[Card | str], wild_rank: int | str, options: Options | None = None) -> int:
    """Only the penalty of the best arrangement (skips building the melds)."""
    search = _Search(as_cards(cards), _wild_rank_value(wild_rank), options or Options())
    full = (1 << len(search.naturals)) - 1
    forced = sum(search.options.points(c) for c in search.forced)
    return forced + (search.best(full, search.wild_count, 0) >> _COUNT_BITS)


def min_penalty_after_discard(
    cards: Iterable[Card | str], wild_rank: int | str, options: Options | None = None
) -> int:
    """The least penalty left after throwing the best card (one search, not one per card)."""
    search = _Search(as_cards(cards), _wild_rank_value(wild_rank), options or Options())
    full = (1 << len(search.naturals)) - 1
    forced = [search.options.points(c) for c in search.forced]
    # throw a card the search may use, or the dearest of the cards that no meld can take
    best = (search.best_with_free_card(full, search.wild_count, 0) >> _COUNT_BITS) + sum(forced)
    if forced:
        best = min(best, (search.best(full, search.wild_count, 0) >> _COUNT_BITS) + sum(forced) - max(forced))
    return best


def can_go_out(cards: Iterable[Card | str], wild_rank: int | str, options: Options | None = None) -> bool:
    """Whether discarding some one card leaves every other card melded (one search, not one per card)."""
    return _Search(as_cards(cards), _wild_rank_value(wild_rank), options or Options()).can_go_out()


def arrange_and_go_out(
    cards: Iterable[Card | str], wild_rank: int | str, options: Options | None = None
) -> tuple[Arrangement, list[Card]]:
    """``best_arrangement`` and ``go_out_discards`` of one hand from ONE search (they share its cores and
    its memo): what the view of a hand that must discard shows."""
    search = _Search(as_cards(cards), _wild_rank_value(wild_rank), options or Options())
    return search.solve(), search.go_out_cards()


def go_out_discards(
    cards: Iterable[Card | str], wild_rank: int | str, options: Options | None = None
) -> list[Card]:
    """The distinct cards whose discard leaves every other card melded, in sorted order."""
    return _Search(as_cards(cards), _wild_rank_value(wild_rank), options or Options()).go_out_cards()
