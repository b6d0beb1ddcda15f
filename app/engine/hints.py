"""A hint for the seat to act (a house option, off by default): the discard that leaves the fewest points.

The hand is scored by the one solver, once per distinct card the seat could throw; where going out is
possible the hint is to go out. Ties keep the cheaper cards in hand (throw the dearer one), then the lower
card in the engine's order, so the same hand always gets the same hint.
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import Card
from .errors import GameOver, IllegalAction, NotYourTurn, WrongPhase
from .game import GameState, go_out_cards
from .solver import min_penalty


@dataclass(frozen=True, slots=True)
class Hint:
    """Throw ``card`` (going out with it when ``go_out``); ``penalty`` points stay unmelded after it."""

    card: Card
    go_out: bool
    penalty: int


def hint(state: GameState, seat: int) -> Hint:
    """The best discard for ``seat`` now; refused (as a move would be) unless it is that seat's discard."""
    if not state.options.hints:
        raise IllegalAction("hints are off at this table; the host can turn them on before a game")
    if state.is_over:
        raise GameOver("the game is over; no more moves")
    if seat != state.turn:
        raise NotYourTurn(f"it is seat {state.turn}'s turn, not seat {seat}'s")
    if state.phase != "discard":
        raise WrongPhase("draw a card first: the hint is for the discard")
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
