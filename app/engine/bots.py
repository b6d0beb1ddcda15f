"""Bot decisions (pure, standard library only, deterministic given a seed).

``choose_action(state, seat, level, seed)`` returns the action a bot of ``level`` takes for
``seat`` now. Levels:

- ``random``: a uniformly random legal action.
- ``easy``: goes out when it can, otherwise always draws from the stock and throws its highest-value card
  that is not in an obvious group (a pair, two suit neighbours, a wild). No solver.
- ``normal``: greedy on the exact solver: draws the discard when that lowers its best penalty, throws the
  card that leaves the lowest penalty, goes out when it can.
- ``hard``: scores every shortlisted hand as *penalty now minus the expected improvement of one more draw*
  (expectation over the cards it has not seen), reads the next player's picks and throws to avoid
  feeding them, plays the final turns (after someone went out) for the lowest penalty only, and always
  goes out when it can (see ``docs/bots.md`` for why waiting never pays in this game).

A bot only ever reads what its seat may know: its own hand, the discard pile, the stock's size, the
round's public moves (``state.round_log``), the options and the scores. It never reads other hands or the
stock order; ``tests/engine/test_bots.py`` checks that.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from .cards import Card, make_shoe, shoe_size
from .errors import IllegalAction
from .game import Action, Discard, Draw, GameState, GoOut, legal_actions
from .options import BOT_LEVELS, Options, cards_dealt
from .solver import best_arrangement, can_go_out, min_penalty, min_penalty_after_discard

# ----------------------------------------------------------------------------------------- tuning (hard)
GAMMA = 1.0  # weight of the expected one-draw improvement of the hand kept
GAMMA_LATE = 0.5  # ... once the round is old (opponents may go out soon)
LATE_TURNS = 6  # own turns into the round after which the weight has moved to GAMMA_LATE
SHORTLIST = 3  # discards scored in full (the rest are clearly worse on penalty)
SHORTLIST_MARGIN = 12  # ... and only those within this many points of the best penalty
DRAW_SHORTLIST = 2  # discards scored in full when weighing the top of the discard pile
MAX_EVALS = 8  # solver calls per hand scored for its potential (the rest are estimated) ...
DECISION_WORK = 168  # ... and per decision, times the hand size (the time budget: 12 calls for 14 cards),
# shared evenly by the hands scored; counted in calls, not read from a clock, so decisions stay deterministic
TAKE_MARGIN = 2.0  # how much better taking the discard must look than drawing blind (it shows our plan)
DANGER_SET = 4.0  # cost of throwing a rank the next player picked up
DANGER_RUN = 2.5  # cost of throwing a suit neighbour (within 2) of a card the next player picked up
DANGER_WILD = 6.0  # cost of throwing a wild card to anyone
DANGER_RELIEF = 0.5  # factor when the next player threw that rank away themselves


# ------------------------------------------------------------------------------------------- solver glue
# The caches hit within a decision and from one decision of a table to its next, so what they need grows with
# the tables a process plays at once, not with time; entries are 250-350 bytes. At 250 tables (a full server)
# these sizes give the hit rates of 8 times more, within 0.0002 ms of CPU a move, and a fraction of the memory
# (``benchmarks/cache_sizes.py``; docs/benchmarks.md, "Issue 39: the 30-minute soak").
HAND_CACHE = 1 << 11  # hands scored (_pen, _after)
DEADWOOD_CACHE = 1 << 9


@lru_cache(maxsize=HAND_CACHE)
def _pen(cards: tuple[Card, ...], wild: int, options: Options) -> int:
    """Minimum penalty of a (sorted) hand."""
    return min_penalty(cards, wild, options)


@lru_cache(maxsize=HAND_CACHE)
def _after(cards: tuple[Card, ...], wild: int, options: Options) -> int:
    """Minimum penalty of a (sorted) hand after throwing its best card: ``min(pen(cards - d))``."""
    return min_penalty_after_discard(cards, wild, options) if cards else 0


@lru_cache(maxsize=DEADWOOD_CACHE)
def _deadwood(cards: tuple[Card, ...], wild: int, options: Options) -> tuple[Card, ...]:
    return best_arrangement(cards, wild, options).deadwood


def _key(cards: Iterable[Card]) -> tuple[Card, ...]:
    return tuple(sorted(cards))


def _without(cards: Sequence[Card], card: Card) -> tuple[Card, ...]:
    rest = list(cards)
    rest.remove(card)
    return tuple(rest)


# ------------------------------------------------------------------------------------------ public facts
@dataclass
class Knowledge:
    """What one seat knows from the public events of the current round."""

    picked: list[list[Card]] = field(default_factory=list)  # per seat: cards taken from the discard pile
    thrown: list[list[Card]] = field(default_factory=list)  # per seat: cards discarded
    held: list[Counter[Card]] = field(default_factory=list)  # per seat: picked and not thrown since


def read_round_log(state: GameState, seat: int) -> Knowledge:
    """What ``seat`` knows from ``state.round_log``, the round's public moves kept in the state."""
    know = Knowledge(
        picked=[[] for _ in range(state.players)],
        thrown=[[] for _ in range(state.players)],
        held=[Counter() for _ in range(state.players)],
    )
    for who, kind, card in state.round_log:
        if card is None or not 0 <= who < state.players:
            continue
        if kind == "draw_discard":
            know.picked[who].append(card)
            know.held[who][card] += 1
        elif kind in ("discard", "go_out"):
            know.thrown[who].append(card)
            if know.held[who][card] > 0:
                know.held[who][card] -= 1
    return know


def _unseen(state: GameState, seat: int, know: Knowledge) -> Counter[Card]:
    """How many copies of each card may still be in the stock or in hidden parts of other hands."""
    shoe = Counter(make_shoe(state.options.deck_count(state.players), state.options.jokers))
    shoe.subtract(state.hands[seat])
    shoe.subtract(state.discard)
    for other, held in enumerate(know.held):
        if other != seat:
            shoe.subtract(held)
    return Counter({card: n for card, n in shoe.items() if n > 0})


# ------------------------------------------------------------------------------------------------ levels
def choose_action(
    state: GameState,
    seat: int,
    level: str = "normal",
    seed: int = 0,
) -> Action:
    """The action a bot of ``level`` takes for ``seat`` now; deterministic given ``seed``.

    What the others picked up and threw comes from ``state.round_log`` (the round's public moves).
    """
    if level not in BOT_LEVELS:
        raise IllegalAction(f"bot level must be one of {', '.join(BOT_LEVELS)}, got {level!r}")
    actions = legal_actions(state, seat)
    if not actions:
        raise IllegalAction(f"seat {seat} has nothing to do now")
    if level == "random":
        return random.Random(f"{seed}/{state.moves}/{seat}").choice(actions)
    if level == "easy":
        return _easy(state, seat, actions)
    if level == "normal":
        return _normal(state, seat, actions)
    return _Hard(state, seat, read_round_log(state, seat)).choose(actions)


def _draw_sources(actions: Sequence[Action]) -> set[str]:
    return {a.source for a in actions if isinstance(a, Draw)}


def _go_outs(actions: Sequence[Action]) -> list[Card]:
    return [a.card for a in actions if isinstance(a, GoOut)]


def _easy(state: GameState, seat: int, actions: list[Action]) -> Action:
    if state.phase == "draw":
        return Draw("stock") if "stock" in _draw_sources(actions) else Draw("discard")
    outs = _go_outs(actions)
    if outs:
        return GoOut(outs[0])
    hand, wild, points = state.hands[seat], state.wild_rank, state.options.points

    def grouped(card: Card) -> bool:
        if card.rank == wild or card.is_joker:
            return True
        return any(
            other is not card
            and (other.rank == card.rank or (other.suit == card.suit and abs(other.rank - card.rank) == 1))
            for other in hand
        )

    loose = [c for c in hand if not grouped(c)] or [c for c in hand if c.rank != wild and not c.is_joker]
    pick = max(loose or list(hand), key=lambda c: (points(c), c))
    return Discard(pick)


def _normal(state: GameState, seat: int, actions: list[Action]) -> Action:
    hand = _key(state.hands[seat])
    wild, options = state.wild_rank, state.options
    if state.phase == "draw":
        sources = _draw_sources(actions)
        if "discard" in sources:
            top = state.discard[-1]
            if "stock" not in sources or _after(_key((*hand, top)), wild, options) < _pen(
                hand, wild, options
            ):
                return Draw("discard")
        return Draw("stock")
    outs = _go_outs(actions)
    if outs:
        return GoOut(outs[0])
    best = min(set(hand), key=lambda c: (_pen(_without(hand, c), wild, options), -options.points(c), c))
    return Discard(best)


class _Hard:
    """One decision of the hard bot (holds the per-decision caches)."""

    def __init__(self, state: GameState, seat: int, know: Knowledge) -> None:
        self.state, self.seat, self.know = state, seat, know
        self.wild, self.options = state.wild_rank, state.options
        self.points = state.options.points
        self.hand = _key(state.hands[seat])
        self.unseen = _unseen(state, seat, know)
        self.total_unseen = sum(self.unseen.values())
        self.final = state.went_out is not None
        players = state.players
        self.next_seat = (seat + 1) % players
        n = cards_dealt(state.round)
        stock0 = shoe_size(state.options.deck_count(players), state.options.jokers) - players * n - 1
        drawn = stock0 - len(state.stock) + state.reshuffles * stock0
        self.turns = drawn / players  # about how many turns each seat has had this round
        late = min(1.0, self.turns / LATE_TURNS)
        self.gamma = GAMMA + (GAMMA_LATE - GAMMA) * late
        self._gain: dict[tuple[Card, ...], float] = {}
        self.evals = DECISION_WORK // (len(self.hand) + 1)
        self._known_pen: dict[tuple[Card, ...], int] = {}
        self._known_dead: dict[tuple[Card, ...], tuple[Card, ...]] = {}

    # -------------------------------------------------------------------------------------- evaluation
    def throws(self, hand: tuple[Card, ...]) -> dict[Card, int]:
        """The penalty left after throwing each distinct card of a (sorted) hand, remembering what it learns
        about each hand left (saves solver calls).

        A card that is deadwood in a best arrangement leaves exactly ``penalty - points`` (the rest of that
        arrangement is still best, as no arrangement of the rest plus the card can beat the whole hand's),
        so only melded cards need the solver."""
        wild, options = self.wild, self.options
        pen = _pen(hand, wild, options)
        deadwood = _deadwood(hand, wild, options)
        left: dict[Card, int] = {}
        for card in sorted(set(hand)):
            rest = _without(hand, card)
            if card in deadwood:
                left[card] = pen - self.points(card)
                self._known_dead[rest] = _without(deadwood, card)
            else:
                left[card] = _pen(rest, wild, options)
            self._known_pen[rest] = left[card]
        return left

    def is_wild(self, card: Card) -> bool:
        return card.rank == self.wild or card.is_joker

    def positions(self, card: Card) -> tuple[int, ...]:
        if card.rank == 1 and self.options.ace_high_low:
            return (1, 14)
        return (card.rank,)

    def gain(self, hand: tuple[Card, ...], share: int = 1) -> float:
        """Expected drop of the penalty of ``hand`` (between turns) after one blind draw and a throw;
        ``share``: how many hands share this decision's solver budget."""
        cached = self._gain.get(hand)
        if cached is not None:
            return cached
        wild, options = self.wild, self.options
        pen = self._known_pen.get(hand)
        if pen is None:
            pen = _pen(hand, wild, options)
        if pen == 0 or not self.total_unseen:
            self._gain[hand] = 0.0
            return 0.0
        best_throw = _after(hand, wild, options)
        deadwood = self._known_dead.get(hand) or _deadwood(hand, wild, options)
        dead = [c for c in deadwood if not self.is_wild(c)]
        has_wild = len(dead) < len(deadwood)  # a spare wild: one more card of a pair or neighbours melds
        ranks = Counter(c.rank for c in dead)
        by_suit: dict[str, list[int]] = {}
        for c in dead:
            by_suit.setdefault(c.suit, []).extend(self.positions(c))
        # the cards that may meld: one solver call each (all wilds of a kind act alike), the likeliest first
        wild_kinds: dict[bool, Card] = {}
        relevant: list[tuple[int, Card]] = []
        for card, count in self.unseen.items():
            if self.is_wild(card):
                wild_kinds.setdefault(card.is_joker, card)
            elif self._relevant(card, ranks, by_suit, has_wild):
                relevant.append((-count, card))
        relevant.sort()
        evaluate = list(wild_kinds.values()) + [card for _, card in relevant]
        evaluate = evaluate[: min(MAX_EVALS, self.evals // share)]
        exact = {card: _after(_key((*hand, card)), wild, options) for card in evaluate}
        total = 0.0
        for card, count in self.unseen.items():
            if self.is_wild(card):
                after = exact.get(wild_kinds[card.is_joker], best_throw)
            else:
                after = exact.get(card, min(pen, best_throw + self.points(card)))
            total += count * (pen - after)
        result = total / self.total_unseen
        self._gain[hand] = result
        return result

    def _relevant(
        self, card: Card, ranks: Counter[int], by_suit: dict[str, list[int]], has_wild: bool
    ) -> bool:
        if ranks[card.rank] >= 2 or (has_wild and ranks[card.rank]):
            return True
        near = by_suit.get(card.suit)
        if not near:
            return False
        for pos in self.positions(card):
            close = sorted({p for p in near if p != pos and abs(p - pos) <= 2})
            if has_wild and close:
                return True
            for i, a in enumerate(close):
                for b in close[i + 1 :]:
                    if max(a, b, pos) - min(a, b, pos) <= 2:
                        return True
        return False

    def danger(self, card: Card) -> float:
        """How much throwing ``card`` may help the next player (from what they picked and threw)."""
        if self.final and self.state.final_turns <= 1:
            return 0.0  # nobody plays after this throw
        if self.is_wild(card):
            return DANGER_WILD
        picked = self.know.picked[self.next_seat] if self.know.picked else []
        thrown = self.know.thrown[self.next_seat] if self.know.thrown else []
        risk = 0.0
        for seen in picked:
            if self.is_wild(seen):
                continue
            if seen.rank == card.rank:
                risk += DANGER_SET
            elif seen.suit == card.suit and any(
                abs(a - b) <= 2 for a in self.positions(seen) for b in self.positions(card)
            ):
                risk += DANGER_RUN
        if risk and any(t.rank == card.rank for t in thrown):
            risk *= DANGER_RELIEF
        return risk

    # ---------------------------------------------------------------------------------------- decisions
    def choose(self, actions: list[Action]) -> Action:
        if self.state.phase == "draw":
            return self.draw(_draw_sources(actions))
        outs = _go_outs(actions)
        if outs:
            # Going out is never worse than waiting: our score cannot drop below 0 and every extra
            # turn only helps the others. The one choice left is what to hand the next player.
            return GoOut(min(outs, key=lambda c: (self.danger(c), -self.points(c), c)))
        return Discard(self.throw(self.hand))

    def draw(self, sources: set[str]) -> Action:
        if "discard" not in sources:
            return Draw("stock")
        if "stock" not in sources:
            return Draw("discard")
        wild, options = self.wild, self.options
        top = self.state.discard[-1]
        hand = self.hand
        taken = _key((*hand, top))
        if can_go_out(taken, wild, options):  # not cached: a hand taken is asked about once (1% hits)
            return Draw("discard")
        pen = _pen(hand, wild, options)
        gain = self.gain(hand, 1 if self.final else 1 + DRAW_SHORTLIST)
        if self.final:
            # one draw left: compare the throw after taking the top with the expected blind draw
            return Draw("discard") if _after(taken, wild, options) < pen - gain else Draw("stock")
        after_top = _after(taken, wild, options)
        if after_top >= pen and not self.is_wild(top):
            # the card melds nothing now; keep it only if it builds toward something
            dead = _deadwood(hand, wild, options)
            if not any(
                c.rank == top.rank or (c.suit == top.suit and abs(c.rank - top.rank) <= 2) for c in dead
            ):
                return Draw("stock")
        stock_value = pen - (1.0 + self.gamma) * gain
        left = self.throws(taken)
        options_after = sorted((p, -self.points(c), c) for c, p in left.items() if c != top)[:DRAW_SHORTLIST]
        if not options_after:  # every card in hand is a copy of the top card
            return Draw("stock")
        take_value = min(
            p - self.gamma * self.gain(_without(taken, c), 1 + len(options_after)) + self.danger(c)
            for p, _, c in options_after
        )
        return Draw("discard") if take_value < stock_value - TAKE_MARGIN else Draw("stock")

    def throw(self, hand: tuple[Card, ...]) -> Card:
        wild, options = self.wild, self.options
        scored = sorted((_pen(_without(hand, c), wild, options), -self.points(c), c) for c in set(hand))
        if self.final:
            return min(scored, key=lambda s: (s[0], self.danger(s[2]), s[1], s[2]))[2]
        low = scored[0][0]
        short = [s for s in scored[:SHORTLIST] if s[0] <= low + SHORTLIST_MARGIN]
        return min(
            short,
            key=lambda s: (
                s[0] - self.gamma * self.gain(_without(hand, s[2]), len(short)) + self.danger(s[2]),
                s[1],
                s[2],
            ),
        )[2]
