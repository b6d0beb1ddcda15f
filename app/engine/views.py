"""Per-seat views: the only path by which game state leaves the server, as typed values.

A view holds what that seat may know and nothing else: its own hand (with its best arrangement and the
cards it may go out with), the other hands as counts, the discard top, the stock as a count, a line per
finished round, and the revealed hands of the last finished round (older reveals are on the history API:
a view stays small however far the game has gone). Never the seed, the stock order, or another seat's
cards in a round still being played.

``TableView`` is the part every seat shares; the seat's view (``SeatView``) and the replay viewer's frames
(``app.engine.frames``) both extend it, so its fields are listed once. Views are frozen dataclasses: the
protocol declares them as the game view of its messages, and ``dataclasses.asdict`` gives their JSON.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Literal

from .cards import Card, rank_name
from .game import GameState, RoundResult, can_draw_stock, discard_hand
from .options import ROUNDS, Options, cards_dealt
from .solver import Arrangement, best_arrangement


@dataclass(frozen=True, slots=True)
class MeldView:
    kind: Literal["set", "run"]
    cards: list[str]


@dataclass(frozen=True, slots=True)
class ArrangementView:
    """A hand's best arrangement: its melds, the unmelded cards (deadwood), and their penalty."""

    melds: list[MeldView]
    deadwood: list[str]
    penalty: int

    @classmethod
    def of(cls, arrangement: Arrangement) -> ArrangementView:
        return cls(
            [MeldView(m.kind, [str(c) for c in m.cards]) for m in arrangement.melds],  # type: ignore[arg-type]
            [str(c) for c in arrangement.deadwood],
            arrangement.penalty,
        )


@dataclass(frozen=True, slots=True)
class HandView:
    """One seat's whole hand, open (a finished round, or the replay), with its arrangement."""

    seat: int
    cards: list[str]
    melds: list[MeldView]
    deadwood: list[str]
    penalty: int

    @classmethod
    def of(cls, seat: int, cards: tuple[Card, ...], arrangement: Arrangement) -> HandView:
        view = ArrangementView.of(arrangement)
        return cls(seat, [str(c) for c in cards], view.melds, view.deadwood, view.penalty)


@dataclass(frozen=True, slots=True)
class RoundLine:
    """A finished round in one line (its penalties are the score sheet's row)."""

    round: int
    wild_rank: str
    dealer: int
    went_out: int | None  # None: nobody went out; the turn limit ended the round (docs/rules.md)


@dataclass(frozen=True, slots=True)
class RoundReveal(RoundLine):
    """A finished round with every hand as it ended."""

    hands: list[HandView]

    @classmethod
    def of(cls, result: RoundResult) -> RoundReveal:
        line = round_line(result)
        hands = [
            HandView.of(seat, cards, arrangement)
            for seat, (cards, arrangement) in enumerate(zip(result.hands, result.arrangements, strict=True))
        ]
        return cls(line.round, line.wild_rank, line.dealer, line.went_out, hands)


def round_line(result: RoundResult) -> RoundLine:
    summary = result.summary()
    return RoundLine(summary["round"], summary["wild_rank"], summary["dealer"], summary["went_out"])


@dataclass(frozen=True, slots=True)
class PlayerLine:
    seat: int
    card_count: int
    total: int


@dataclass(frozen=True, slots=True)
class TableView:
    """What everyone at the table sees of the round being played."""

    round: int
    wild_rank: str
    cards_dealt: int
    dealer: int
    turn: int | None
    phase: Literal["draw", "discard", "round_end", "game_over"]  # round_end: only in replay frames
    went_out: int | None
    final_turns: int
    discard_top: str | None
    discard_count: int
    stock_count: int
    scores: list[list[int]]
    totals: list[int]
    winners: list[int]


def table_fields(state: GameState) -> dict[str, object]:
    """The fields of ``TableView`` for a state: the one place they are read from a game."""
    scores, totals = _tallies(state)
    return {
        "round": state.round,
        "wild_rank": rank_name(state.wild_rank),
        "cards_dealt": cards_dealt(state.round),
        "dealer": state.dealer,
        "turn": None if state.is_over else state.turn,
        "phase": state.phase,
        "went_out": state.went_out,
        "final_turns": state.final_turns,
        "discard_top": str(state.discard[-1]) if state.discard else None,
        "discard_count": len(state.discard),
        "stock_count": len(state.stock),
        "scores": scores,
        "totals": totals,
        "winners": _winners(totals) if state.is_over else [],
    }


@dataclass(frozen=True, slots=True)
class LaidDown:
    """The melds of the player who went out, laid down for everyone during the final turns, and the card they
    went out with."""

    seat: int
    melds: list[MeldView]
    card: str | None


@dataclass(frozen=True, slots=True)
class SeatView(TableView):
    """What one seat may see (``seat`` None: a spectator, with no hand)."""

    rounds: int
    moves: int  # moves made in the whole game so far (every draw and discard)
    players: list[PlayerLine]
    results: list[RoundLine]
    last_result: RoundReveal | None
    options: Options
    laid_down: LaidDown | None  # during the final turns (``went_out`` set): what everyone sees on the table
    seat: int | None
    hand: list[str] | None
    arrangement: ArrangementView | None
    drawn: str | None
    can_go_out: list[str]
    legal: list[str]


# 2048: the hit rate of 8192 with 250 tables at once, in a quarter of the memory (benchmarks/cache_sizes.py)
@lru_cache(maxsize=2048)
def _arrangement(hand: tuple[Card, ...], wild: int, options: Options) -> ArrangementView:
    """Views are built for every socket on every move, but a hand rarely changes: remember its arrangement."""
    return ArrangementView.of(best_arrangement(hand, wild, options))


@dataclass(frozen=True, slots=True)
class _Finished:
    """What the finished rounds of a game show (the same for every seat, and for every move of a round).
    It holds its rounds' results only weakly, so it lasts as long as they do."""

    results: tuple[weakref.ref[RoundResult], ...]
    lines: list[RoundLine]
    last: RoundReveal | None
    scores: list[list[int]]
    totals: list[int]

    def of(self, results: tuple[RoundResult, ...]) -> bool:
        """Whether these are the rounds it was built from."""
        return len(self.results) == len(results) and all(
            ref() is result for ref, result in zip(self.results, results, strict=True)
        )


# (id of the last round's result, rounds, players) -> what they show. An entry lasts as long as the last
# round's result does (while a state of its game is held); every game's first round shares one entry.
_RESULTS_CACHE: dict[tuple[int, int, int], _Finished] = {}


def _finished(state: GameState) -> _Finished:
    """Successive states share one results tuple, so this is built once per round (keyed with the player
    count too: every game's first round shares the one empty tuple)."""
    results = state.results
    key = (id(results[-1]) if results else 0, len(results), state.players)
    cached = _RESULTS_CACHE.get(key)
    if cached is None or not cached.of(results):
        refs = tuple(weakref.ref(r) for r in results[:-1])
        if results:
            refs += (weakref.ref(results[-1], partial(_forget_finished, key)),)
        last = RoundReveal.of(results[-1]) if results else None
        cached = _Finished(refs, [round_line(r) for r in results], last, state.scores(), state.totals())
        _RESULTS_CACHE[key] = cached
    return cached


def _forget_finished(key: tuple[int, int, int], gone: weakref.ref[RoundResult]) -> None:
    """The last round's result of an entry was freed: the entry goes (unless the key holds another's)."""
    entry = _RESULTS_CACHE.get(key)
    if entry is not None and entry.results and entry.results[-1] is gone:
        del _RESULTS_CACHE[key]


def _tallies(state: GameState) -> tuple[list[list[int]], list[int]]:
    """(penalty rows, totals): fresh lists, so a view never shares a list with the cache."""
    finished = _finished(state)
    return [list(row) for row in finished.scores], list(finished.totals)


def _winners(totals: list[int]) -> list[int]:
    low = min(totals)
    return [seat for seat, total in enumerate(totals) if total == low]


def _legal(state: GameState, seat: int, go_out: list[str]) -> list[str]:
    my_turn = not state.is_over and state.turn == seat
    legal: list[str] = []
    if my_turn and state.phase == "draw":
        legal = ["draw_stock"] if can_draw_stock(state) else []
        if state.discard:
            legal.append("draw_discard")
    elif my_turn and state.phase == "discard":
        legal = ["discard"]
    if go_out:
        legal.append("go_out")
    return legal


def _laid_down(state: GameState) -> LaidDown | None:
    """Going out lays the hand down (RULES.md, "Going out"): its melds are public until the round ends."""
    if state.went_out is None or state.is_over:
        return None
    seat = state.went_out
    card = next((c for s, kind, c in reversed(state.round_log) if s == seat and kind == "go_out"), None)
    melds = _arrangement(state.hands[seat], state.wild_rank, state.options).melds
    return LaidDown(seat, melds, None if card is None else str(card))


def _shared_fields(state: GameState) -> dict[str, object]:
    """The fields of a ``SeatView`` that are the same for every seat (and the spectators)."""
    finished = _finished(state)
    return {
        **table_fields(state),
        "rounds": ROUNDS,
        "moves": state.moves,
        "players": [PlayerLine(s, len(state.hands[s]), finished.totals[s]) for s in range(state.players)],
        "results": finished.lines,
        "last_result": finished.last,
        "options": state.options,
        "laid_down": _laid_down(state),
    }


def _seat_fields(state: GameState, seat: int | None) -> dict[str, object]:
    """The fields of a ``SeatView`` that only ``seat`` may see (``None``: a spectator, who sees none)."""
    if seat is None:
        return {
            "seat": None,
            "hand": None,
            "arrangement": None,
            "drawn": None,
            "can_go_out": [],
            "legal": [],
        }
    if not 0 <= seat < state.players:
        raise ValueError(f"seat {seat} is not at this table")
    hand = state.hands[seat]
    to_discard = discard_hand(state, seat)  # this seat's discard: its arrangement and go-outs, one search
    if to_discard is None:
        go_out: list[str] = []
        arrangement = None if state.is_over else _arrangement(hand, state.wild_rank, state.options)
    else:
        go_out = [str(c) for c in to_discard[1]]
        arrangement = ArrangementView.of(to_discard[0])
    my_turn = not state.is_over and state.turn == seat
    return {
        "seat": seat,
        "hand": [str(c) for c in hand],
        "arrangement": arrangement,
        "drawn": str(state.drawn) if my_turn and state.drawn else None,
        "can_go_out": go_out,
        "legal": _legal(state, seat, go_out),
    }


def view_for(state: GameState, seat: int | None) -> SeatView:
    """What ``seat`` may see (``None``: a spectator)."""
    seat_fields = _seat_fields(state, seat)
    return SeatView(**_shared_fields(state), **seat_fields)  # type: ignore[arg-type]


def view_parts(
    state: GameState, seats: Iterable[int | None]
) -> tuple[dict[str, object], dict[int | None, dict[str, object]]]:
    """``view_for`` of several seats at once (one broadcast), as its two parts: the fields every seat shares,
    computed once, and each seat's own fields. In ``SeatView``'s order: the shared fields, then the seat's;
    ``{**shared, **own}`` is that seat's view."""
    return _shared_fields(state), {seat: _seat_fields(state, seat) for seat in seats}


def spectator_view(state: GameState) -> SeatView:
    """What anyone watching the table may see."""
    return view_for(state, None)


__all__ = [
    "ArrangementView",
    "HandView",
    "LaidDown",
    "MeldView",
    "PlayerLine",
    "RoundLine",
    "RoundReveal",
    "SeatView",
    "TableView",
    "spectator_view",
    "table_fields",
    "view_for",
    "view_parts",
]
