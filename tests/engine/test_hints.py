"""The hint (house option ``hints``): the discard that leaves the fewest points, checked against the
exhaustive oracle on random hands, and refused whenever a discard would be."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from app.engine import (
    Draw,
    GameOver,
    GameState,
    IllegalAction,
    NotYourTurn,
    Options,
    WrongPhase,
    apply,
    new_game,
)
from app.engine.cards import Card
from app.engine.game import _deal
from app.engine.hints import hint

from .oracle import oracle_go_out_discards, oracle_min_penalty


def at_discard(hand: str, *, round_number: int = 1, options: Options | None = None) -> GameState:
    """Seat 0 to discard from ``hand`` (space-separated cards) in ``round_number``."""
    base = new_game(2, options or Options(hints=True), 5)
    cards = tuple(Card.parse(c) for c in hand.split())
    return replace(base, round=round_number, turn=0, phase="discard", hands=(cards, base.hands[1]))


def test_the_dearest_loose_card_goes_when_nothing_else_melds() -> None:
    found = hint(at_discard("5H 6H 9C KS"), 0)  # round 1: threes are wild, none here
    assert (str(found.card), found.go_out, found.penalty) == ("KS", False, 20)


def test_going_out_is_the_hint_when_it_is_possible() -> None:
    found = hint(at_discard("5H 6H 7H KS"), 0)
    assert (str(found.card), found.go_out, found.penalty) == ("KS", True, 0)


def test_a_card_that_breaks_a_meld_is_kept() -> None:
    # Throwing the king (10) leaves 8 8 8 + 2 = 2; throwing the 2 leaves the king: 10.
    found = hint(at_discard("8H 8S 8C 2D KS", round_number=2), 0)
    assert (str(found.card), found.go_out, found.penalty) == ("KS", False, 2)


@pytest.mark.parametrize("seed", range(6))
def test_the_hint_is_the_best_discard_on_random_hands(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(40):  # rounds 1 to 5: hands of 4 to 8 cards after the draw, small enough for the oracle
        options = Options(hints=True, jokers=rng.random() < 0.3, ace_high_low=rng.random() < 0.3)
        round_number = rng.randint(1, 5)
        players = rng.randint(2, 4)
        state = new_game(players, options, rng.randrange(1 << 30))
        state = replace(state, **_deal(players, options, rng.randrange(1 << 30), round_number, state.dealer))
        seat = state.turn
        state, _ = apply(state, seat, Draw("stock"))
        hand = list(state.hands[seat])
        found = hint(state, seat)
        after = []
        for card in set(hand):
            rest = list(hand)
            rest.remove(card)
            after.append(oracle_min_penalty(rest, state.wild_rank, options))
        assert found.penalty == min(after)
        rest = list(hand)
        rest.remove(found.card)
        assert oracle_min_penalty(rest, state.wild_rank, options) == found.penalty
        outs = oracle_go_out_discards(hand, state.wild_rank, options)
        assert found.go_out == bool(outs)
        if outs:
            assert found.card in outs and found.penalty == 0


def test_hints_are_refused_where_a_discard_would_be() -> None:
    state = at_discard("5H 6H 9C KS")
    with pytest.raises(IllegalAction, match="hints are off"):
        hint(replace(state, options=Options()), 0)
    with pytest.raises(NotYourTurn):
        hint(state, 1)
    with pytest.raises(WrongPhase):
        hint(replace(state, phase="draw"), 0)
    with pytest.raises(GameOver):
        hint(replace(state, phase="game_over"), 0)


def test_the_option_round_trips_and_is_off_by_default() -> None:
    assert Options().hints is False
    assert Options.from_dict({"hints": True}).hints is True
    state = at_discard("5H 6H 9C KS")
    assert GameState.from_dict(state.to_dict()).options.hints is True
