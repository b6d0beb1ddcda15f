"""A hint for the seat to act (a house option, off by default): which pile to draw from, then the discard
that leaves the fewest points.

Before the draw the hint names a pile: the discard pile's top card when taking it lowers the fewest points
the hand can be left with after its best discard (a card that completes or extends a meld), else the stock;
ties go to the stock, so the same hand always gets the same hint. After the draw the hand is scored by the one
solver, once per distinct card the seat could throw; where going out is possible the hint is to go out. Ties
keep the cheaper cards in hand (throw the dearer one), then the lower card in the engine's order.

Who may ask is the table's rule (``allowed``: the option ``hints``, or a seat played for practice, decided by
the caller); the engine only refuses what a move would be refused for.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .cards import Card
from .errors import GameOver, IllegalAction, NotYourTurn
from .game import GameState, go_out_cards
from .solver import can_go_out, min_penalty, min_penalty_after_discard

Source = Literal["stock", "discard"]


@dataclass(frozen=True, slots=True)
class Hint:
    """Throw ``card`` (going out with it when ``go_out``); ``penalty`` points stay unmelded after it."""

    card: Card
    go_out: bool
    penalty: int


@dataclass(frozen=True, slots=True)
class DrawHint:
    """Draw from ``source``: ``card`` is the discard pile's top card when the hint is to take it (None for the
    stock). ``go_out``: after this draw the seat can go out (for the stock: whatever card comes). ``penalty``:
    the points left unmelded after this draw and the best discard (for the stock, at most this many)."""

    source: Source
    card: Card | None
    go_out: bool
    penalty: int


HINTS_OFF = "hints are off at this table; the host can turn them on before a game"


def hint(state: GameState, seat: int, *, allowed: bool | None = None) -> Hint | DrawHint:
    """The best move for ``seat`` now: a pile before its draw, a discard after it. ``allowed`` overrides the
    table's option ``hints`` (the caller's rule, e.g. a seat played for practice may always ask). Refused
    (as a move would be) unless it is that seat's turn."""
    if not (state.options.hints if allowed is None else allowed):
        raise IllegalAction(HINTS_OFF)
    if state.is_over:
        raise GameOver("the game is over; no more moves")
    if seat != state.turn:
        raise NotYourTurn(f"it is seat {state.turn}'s turn, not seat {seat}'s")
    if state.phase == "draw":
        return draw_hint(state, seat)
    return discard_hint(state, seat)


def draw_hint(state: GameState, seat: int) -> DrawHint:
    """Take the discard pile's top card where it lowers the best the hand can do after a discard, else the
    stock. Keeping the hand as it is (drawing and throwing the drawn card back) is always possible, so a card
    is only worth taking when it does strictly better than that."""
    hand = list(state.hands[seat])
    kept = min_penalty(hand, state.wild_rank, state.options)
    if state.discard:
        top = state.discard[-1]
        with_top = [*hand, top]
        taken = min_penalty_after_discard(with_top, state.wild_rank, state.options)
        if taken < kept:
            return DrawHint("discard", top, can_go_out(with_top, state.wild_rank, state.options), taken)
    return DrawHint("stock", None, kept == 0, kept)


def discard_hint(state: GameState, seat: int) -> Hint:
    """The discard that leaves the fewest points (going out where possible)."""
    outs = go_out_cards(state, seat)
    if outs:
        return Hint(max(outs, key=state.options.points), True, 0)
    hand = state.hands[seat]
    best: tuple[int, int, Card] | None = None
    for card in sorted(set(hand), key=lambda c: (c.rank, c.suit)):
        rest = list(hand)
        rest.remove(card)
        key = (min_penalty(rest, state.wild_rank, state.options), -state.options.points(card), card)
        if best is None or key[:2] < best[:2]:
            best = key
    assert best is not None  # a hand in the discard phase holds at least four cards
    return Hint(best[2], False, best[0])
