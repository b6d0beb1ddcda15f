"""The game state machine: deal, draw, discard, go out, final turns, scoring, eleven rounds.

``apply(state, seat, action) -> (new_state, events)`` is a pure function of immutable states. All
randomness comes from the game's seed (one derived generator per deal and per reshuffle), so a game
replays exactly from ``(seed, options, players, actions)``.
"""

from __future__ import annotations

import random
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache, partial
from typing import Any, Literal

from .cards import Card, as_card, hand_order, make_shoe, rank_name
from .errors import CannotGoOut, CardNotInHand, GameOver, IllegalAction, NotYourTurn, WrongPhase
from .options import ROUNDS, Options, cards_dealt, check_players, wild_rank
from .solver import Arrangement, Meld, arrange_and_go_out, best_arrangement, go_out_discards

Phase = Literal["draw", "discard", "game_over"]
DRAW_SOURCES = ("stock", "discard")
# A round in which nobody has gone out after this many turns per seat ends at once, every hand scored as
# it lies (docs/rules.md): players, or programs, could otherwise keep a round going for ever. Real rounds
# are far shorter (see tests/engine/test_round_limit.py).
TURNS_PER_SEAT_LIMIT = 50
TURN_LIMIT = "turn_limit"  # a round_end's ``reason`` when the limit ended it


@dataclass(frozen=True, slots=True)
class Draw:
    """Take the top card of the stock or of the discard pile."""

    source: str

    def __post_init__(self) -> None:
        if self.source not in DRAW_SOURCES:
            raise IllegalAction(f"draw from 'stock' or 'discard', not {self.source!r}")


@dataclass(frozen=True, slots=True)
class Discard:
    """Put one card from the hand face up on the discard pile, ending the turn."""

    card: Card


@dataclass(frozen=True, slots=True)
class GoOut:
    """Discard ``card`` with every other card of the hand melded."""

    card: Card


Action = Draw | Discard | GoOut


def action_to_dict(action: Action) -> dict[str, str]:
    if isinstance(action, Draw):
        return {"type": "draw", "source": action.source}
    if isinstance(action, GoOut):
        return {"type": "go_out", "card": str(action.card)}
    return {"type": "discard", "card": str(action.card)}


def action_from_dict(data: dict[str, Any]) -> Action:
    """Read ``{"type": "draw", "source": "stock"}``, ``{"type": "discard"|"go_out", "card": "10H"}``."""
    kind = data.get("type") if isinstance(data, dict) else None
    if kind == "draw":
        return Draw(str(data.get("source")))
    if kind == "discard":
        return Discard(as_card(data.get("card")))  # type: ignore[arg-type]
    if kind == "go_out":
        return GoOut(as_card(data.get("card")))  # type: ignore[arg-type]
    raise IllegalAction(f"an action's type is 'draw', 'discard' or 'go_out', got {kind!r}")


@dataclass(frozen=True, slots=True, weakref_slot=True)
class RoundResult:
    """One finished round: every hand as it ended, arranged for the least penalty. (Weakly referable: what
    is cached of it lasts only as long as it does.)"""

    round: int
    dealer: int
    went_out: int | None  # None: nobody went out; the turn limit ended the round
    hands: tuple[tuple[Card, ...], ...]
    arrangements: tuple[Arrangement, ...]

    @property
    def penalties(self) -> tuple[int, ...]:
        return tuple(a.penalty for a in self.arrangements)

    def summary(self) -> dict[str, Any]:
        """The round in one line (its penalties are the score sheet's row)."""
        return {
            "round": self.round,
            "wild_rank": rank_name(wild_rank(self.round)),
            "dealer": self.dealer,
            "went_out": self.went_out,
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.summary(),
            "hands": [
                {"seat": seat, "cards": [str(c) for c in cards], **arrangement.to_dict()}
                for seat, (cards, arrangement) in enumerate(zip(self.hands, self.arrangements, strict=True))
            ],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RoundResult:
        hands = tuple(tuple(Card.parse(c) for c in hand["cards"]) for hand in data["hands"])
        arrangements = tuple(
            Arrangement(
                tuple(Meld(m["kind"], tuple(Card.parse(c) for c in m["cards"])) for m in hand["melds"]),
                tuple(Card.parse(c) for c in hand["deadwood"]),
                int(hand["penalty"]),
            )
            for hand in data["hands"]
        )
        went_out = None if data["went_out"] is None else int(data["went_out"])
        return cls(int(data["round"]), int(data["dealer"]), went_out, hands, arrangements)


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened; ``card`` is hidden from other seats when ``private`` is set."""

    kind: str
    seat: int | None = None
    card: Card | None = None
    source: str | None = None
    private: bool = False
    data: dict[str, Any] = field(default_factory=dict)

    def for_seat(self, seat: int | None) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, **self.data}
        if self.seat is not None:
            out["seat"] = self.seat
        if self.source is not None:
            out["source"] = self.source
        if self.card is not None and (not self.private or seat == self.seat):
            out["card"] = str(self.card)
        return out


@dataclass(frozen=True, slots=True)
class GameState:
    """Everything about one game at one moment. Immutable; ``to_dict`` / ``from_dict`` for the store."""

    players: int
    options: Options
    seed: int
    first_dealer: int
    round: int
    dealer: int
    turn: int
    phase: Phase
    hands: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...]  # the last card is the top
    discard: tuple[Card, ...]  # the last card is the top
    drawn: Card | None = None  # the card the seat to act drew this turn
    went_out: int | None = None
    final_turns: int = 0  # turns still owed after someone went out
    reshuffles: int = 0  # in this round; seeds the next reshuffle
    moves: int = 0
    results: tuple[RoundResult, ...] = ()
    # The round's public moves, as everyone at a real table sees them: (seat, kind, card) with kind
    # "draw_stock" (card None), "draw_discard", "discard" or "go_out". Bots read what others collect here.
    round_log: tuple[tuple[int, str, Card | None], ...] = ()

    @property
    def wild_rank(self) -> int:
        return wild_rank(self.round)

    @property
    def is_over(self) -> bool:
        return self.phase == "game_over"

    def scores(self) -> list[list[int]]:
        """Penalty per finished round (rows) per seat (columns)."""
        return [list(r.penalties) for r in self.results]

    def totals(self) -> list[int]:
        rows = [r.penalties for r in self.results]
        return [sum(row[seat] for row in rows) for seat in range(self.players)]

    def winners(self) -> list[int]:
        """The seats with the lowest total once the game is over (equal lowest totals share the win)."""
        if not self.is_over:
            return []
        totals = self.totals()
        low = min(totals)
        return [seat for seat, total in enumerate(totals) if total == low]

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "options": self.options.to_dict(),
            "seed": self.seed,
            "first_dealer": self.first_dealer,
            "round": self.round,
            "dealer": self.dealer,
            "turn": self.turn,
            "phase": self.phase,
            "hands": [[str(c) for c in hand] for hand in self.hands],
            "stock": [str(c) for c in self.stock],
            "discard": [str(c) for c in self.discard],
            "drawn": str(self.drawn) if self.drawn else None,
            "went_out": self.went_out,
            "final_turns": self.final_turns,
            "reshuffles": self.reshuffles,
            "moves": self.moves,
            "results": [_result_dict(r) for r in self.results],
            "round_log": [[seat, kind, str(card) if card else None] for seat, kind, card in self.round_log],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameState:
        def cards(items: Iterable[str]) -> tuple[Card, ...]:
            return tuple(Card.parse(c) for c in items)

        return cls(
            players=int(data["players"]),
            options=Options.from_dict(data["options"]),
            seed=int(data["seed"]),
            first_dealer=int(data["first_dealer"]),
            round=int(data["round"]),
            dealer=int(data["dealer"]),
            turn=int(data["turn"]),
            phase=data["phase"],
            hands=tuple(cards(hand) for hand in data["hands"]),
            stock=cards(data["stock"]),
            discard=cards(data["discard"]),
            drawn=Card.parse(data["drawn"]) if data.get("drawn") else None,
            went_out=data.get("went_out"),
            final_turns=int(data.get("final_turns", 0)),
            reshuffles=int(data.get("reshuffles", 0)),
            moves=int(data.get("moves", 0)),
            results=tuple(RoundResult.from_dict(r) for r in data.get("results", [])),
            round_log=tuple(
                (int(seat), str(kind), Card.parse(card) if card else None)
                for seat, kind, card in data.get("round_log", [])
            ),
        )


# id of a round's result -> (a weak reference to it, its dict). An entry lasts as long as its result: while a
# state of its game is held (a loaded room's table), not after (a finished game's rounds leave with it).
_RESULT_DICTS: dict[int, tuple[weakref.ref[RoundResult], dict[str, Any]]] = {}


def _result_dict(result: RoundResult) -> dict[str, Any]:
    """A finished round never changes and every later state of its game holds it, so its dict is built
    once, not on every move's snapshot (shared between snapshots: what ``to_dict`` returns is read-only)."""
    key = id(result)
    cached = _RESULT_DICTS.get(key)
    if cached is None or cached[0]() is not result:
        cached = (weakref.ref(result, partial(_forget_result, key)), result.to_dict())
        _RESULT_DICTS[key] = cached
    return cached[1]


def _forget_result(key: int, gone: weakref.ref[RoundResult]) -> None:
    """A round's result was freed: its dict goes too (unless the id already holds another result's)."""
    entry = _RESULT_DICTS.get(key)
    if entry is not None and entry[0] is gone:
        del _RESULT_DICTS[key]


def _sorted_hand(cards: Iterable[Card]) -> tuple[Card, ...]:
    return tuple(sorted(cards, key=hand_order))


def _deal(players: int, options: Options, seed: int, round_number: int, dealer: int) -> dict[str, Any]:
    rng = random.Random(f"{seed}/deal/{round_number}")
    pile = make_shoe(options.deck_count(players), options.jokers)
    rng.shuffle(pile)
    hands: list[list[Card]] = [[] for _ in range(players)]
    for _ in range(cards_dealt(round_number)):
        for step in range(1, players + 1):
            hands[(dealer + step) % players].append(pile.pop())
    top = pile.pop()
    return {
        "round": round_number,
        "dealer": dealer,
        "turn": (dealer + 1) % players,
        "phase": "draw",
        "hands": tuple(_sorted_hand(hand) for hand in hands),
        "stock": tuple(pile),
        "discard": (top,),
        "drawn": None,
        "went_out": None,
        "final_turns": 0,
        "reshuffles": 0,
        "round_log": (),
    }


def new_game(players: int, options: Options | None = None, seed: int = 0) -> GameState:
    """Shuffle and deal round 1. The first dealer is drawn from the seed."""
    check_players(players)
    options = options or Options()
    options.deck_count(players)  # fails early when the decks cannot serve round 11
    first_dealer = random.Random(f"{seed}/dealer").randrange(players)
    return GameState(
        players=players,
        options=options,
        seed=seed,
        first_dealer=first_dealer,
        **_deal(players, options, seed, 1, first_dealer),
    )


@lru_cache(maxsize=1024)  # as many hits as 4096 at 250 tables at once (benchmarks/cache_sizes.py)
def _go_out_cards(hand: tuple[Card, ...], wild: int, options: Options) -> tuple[Card, ...]:
    return tuple(go_out_discards(hand, wild, options))


def go_out_cards(state: GameState, seat: int) -> list[Card]:
    """The cards ``seat`` may discard to go out now (empty unless it is that seat's discard)."""
    if state.phase != "discard" or state.turn != seat:
        return []
    return list(_go_out_cards(_sorted_hand(state.hands[seat]), state.wild_rank, state.options))


@lru_cache(maxsize=1024)
def _to_discard(hand: tuple[Card, ...], wild: int, options: Options) -> tuple[Arrangement, tuple[Card, ...]]:
    arrangement, cards = arrange_and_go_out(hand, wild, options)
    return arrangement, tuple(cards)


def discard_hand(state: GameState, seat: int) -> tuple[Arrangement, list[Card]] | None:
    """(best arrangement, go-out cards) of ``seat``'s hand when it is that seat's discard, else None: what
    that seat's view shows, from one search for both (``go_out_cards`` alone stops early when the hand
    cannot go out, so the engine and the bots, which need only that, keep their own search)."""
    if state.phase != "discard" or state.turn != seat:
        return None
    arrangement, cards = _to_discard(_sorted_hand(state.hands[seat]), state.wild_rank, state.options)
    return arrangement, list(cards)


def can_draw_stock(state: GameState) -> bool:
    return bool(state.stock) or len(state.discard) > 1


def legal_actions(state: GameState, seat: int) -> list[Action]:
    """Every action ``seat`` may take now, in a fixed order."""
    if state.is_over or seat != state.turn:
        return []
    if state.phase == "draw":
        sources = [s for s, ok in (("stock", can_draw_stock(state)), ("discard", bool(state.discard))) if ok]
        return [Draw(source) for source in sources]
    hand = sorted(set(state.hands[seat]), key=lambda c: (c.rank, c.suit))
    actions: list[Action] = [Discard(card) for card in hand]
    actions.extend(GoOut(card) for card in go_out_cards(state, seat))
    return actions


def _check_turn(state: GameState, seat: int, action: Action) -> None:
    if state.is_over:
        raise GameOver("the game is over; no more moves")
    if not 0 <= seat < state.players:
        raise NotYourTurn(f"seat {seat} is not at this table")
    if seat != state.turn:
        raise NotYourTurn(f"it is seat {state.turn}'s turn, not seat {seat}'s")
    if isinstance(action, Draw):
        if state.phase != "draw":
            raise WrongPhase("you have drawn already: discard a card or go out")
    elif state.phase != "discard":
        raise WrongPhase("draw a card first, from the stock or the discard pile")


def apply(state: GameState, seat: int, action: Action) -> tuple[GameState, list[Event]]:
    """Apply one action of ``seat``; illegal actions raise a GameError that says what was expected."""
    _check_turn(state, seat, action)
    if isinstance(action, Draw):
        new_state, events = _draw(state, seat, action.source)
    else:
        new_state, events = _discard(state, seat, action)
    return replace(new_state, moves=state.moves + 1), events


def _draw(state: GameState, seat: int, source: str) -> tuple[GameState, list[Event]]:
    events: list[Event] = []
    stock, discard, reshuffles = state.stock, state.discard, state.reshuffles
    if source == "discard":
        if not discard:
            raise IllegalAction("the discard pile is empty: draw from the stock")
        card, discard = discard[-1], discard[:-1]
        events.append(Event("draw", seat, card, "discard"))
    else:
        if not stock:
            if len(discard) <= 1:
                raise IllegalAction("the stock is empty and there is nothing to reshuffle: draw the discard")
            rng = random.Random(f"{state.seed}/reshuffle/{state.round}/{reshuffles}")
            pile = list(discard[:-1])
            rng.shuffle(pile)
            stock, discard, reshuffles = tuple(pile), discard[-1:], reshuffles + 1
            events.append(Event("reshuffle", data={"stock_count": len(stock)}))
        card, stock = stock[-1], stock[:-1]
        events.append(Event("draw", seat, card, "stock", private=True))
    hands = list(state.hands)
    hands[seat] = _sorted_hand((*hands[seat], card))
    public = (seat, "draw_discard", card) if source == "discard" else (seat, "draw_stock", None)
    new_state = replace(
        state,
        hands=tuple(hands),
        stock=stock,
        discard=discard,
        reshuffles=reshuffles,
        phase="discard",
        drawn=card,
        round_log=(*state.round_log, public),
    )
    return new_state, events


def _discard(state: GameState, seat: int, action: Discard | GoOut) -> tuple[GameState, list[Event]]:
    card = action.card
    hand = list(state.hands[seat])
    if card not in hand:
        raise CardNotInHand(f"{card} is not in your hand")
    going_out = isinstance(action, GoOut)
    if going_out and card not in go_out_cards(state, seat):
        raise CannotGoOut(f"discarding {card} would leave cards unmelded: you cannot go out with it")
    hand.remove(card)
    hands = list(state.hands)
    hands[seat] = tuple(hand)
    events = [Event("go_out" if going_out else "discard", seat, card)]
    went_out, final_turns = state.went_out, state.final_turns
    if went_out is None and going_out:
        went_out, final_turns = seat, state.players - 1
        events[0] = Event("go_out", seat, card, data={"final_turns": final_turns})
    elif went_out is not None:
        final_turns -= 1
    new_state = replace(
        state,
        hands=tuple(hands),
        discard=(*state.discard, card),
        round_log=(*state.round_log, (seat, "go_out" if going_out else "discard", card)),
        drawn=None,
        went_out=went_out,
        final_turns=final_turns,
        phase="draw",
        turn=(seat + 1) % state.players,
    )
    if went_out is not None and final_turns == 0:
        return _end_round(new_state, events)
    if went_out is None and turns_taken(new_state) >= TURNS_PER_SEAT_LIMIT * state.players:
        return _end_round(new_state, events)
    return new_state, events


def turns_taken(state: GameState) -> int:
    """The turns completed in this round (each ends with a discard or a go-out)."""
    return sum(1 for _seat, kind, _card in state.round_log if kind in ("discard", "go_out"))


def _end_round(state: GameState, events: list[Event]) -> tuple[GameState, list[Event]]:
    """Score the round (every hand in its best arrangement) and deal the next, or end the game. With
    nobody out, the turn limit ended it: the ``round_end`` event says so (``reason``)."""
    arrangements = tuple(best_arrangement(hand, state.wild_rank, state.options) for hand in state.hands)
    result = RoundResult(state.round, state.dealer, state.went_out, state.hands, arrangements)
    results = (*state.results, result)
    ended: dict[str, Any] = {"round": state.round, "penalties": list(result.penalties)}
    if state.went_out is None:
        ended["reason"] = TURN_LIMIT
    events.append(Event("round_end", data=ended))
    if state.round == ROUNDS:
        over = replace(state, results=results, phase="game_over", went_out=state.went_out)
        events.append(Event("game_end", data={"winners": over.winners(), "totals": over.totals()}))
        return over, events
    dealer = (state.dealer + 1) % state.players
    nxt = replace(
        state, results=results, **_deal(state.players, state.options, state.seed, state.round + 1, dealer)
    )
    events.append(Event("round_start", data={"round": nxt.round, "dealer": dealer}))
    return nxt, events


def replay(
    players: int, options: Options | None, seed: int, actions: Sequence[tuple[int, Action]]
) -> GameState:
    """Rebuild a game from its seed, options and ordered (seat, action) log."""
    state = new_game(players, options, seed)
    for seat, action in actions:
        state, _ = apply(state, seat, action)
    return state
