"""The hint (house option ``hints``): before the draw, the pile to draw from; after it, the discard that
leaves the fewest points. Both checked against the exhaustive oracle on random hands, and refused whenever a
move would be."""

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
    apply,
    new_game,
)
from app.engine.cards import Card
from app.engine.game import _deal
from app.engine.hints import DrawHint, Hint, hint

from .oracle import oracle_go_out_discards, oracle_min_penalty


def at_discard(hand: str, *, round_number: int = 1, options: Options | None = None) -> GameState:
    """Seat 0 to discard from ``hand`` (space-separated cards) in ``round_number``."""
    base = new_game(2, options or Options(hints=True), 5)
    cards = tuple(Card.parse(c) for c in hand.split())
    return replace(base, round=round_number, turn=0, phase="discard", hands=(cards, base.hands[1]))


def at_draw(hand: str, top: str, *, round_number: int = 1, options: Options | None = None) -> GameState:
    """Seat 0 to draw, holding ``hand``, with ``top`` on the discard pile, in ``round_number``."""
    state = at_discard(hand, round_number=round_number, options=options)
    return replace(state, phase="draw", discard=(*state.discard[:-1], Card.parse(top)))


def draw_hint(state: GameState, **kwargs: bool) -> tuple[str, str | None, bool, int]:
    found = hint(state, 0, **kwargs)
    assert isinstance(found, DrawHint)
    return found.source, None if found.card is None else str(found.card), found.go_out, found.penalty


def test_a_discard_that_completes_a_set_is_taken() -> None:
    # 9 9 + K: taking the 9 of diamonds makes 9-9-9 and throws the king: out.
    assert draw_hint(at_draw("9C 9H KS", "9D")) == ("discard", "9D", True, 0)


def test_a_discard_that_completes_a_run_is_taken() -> None:
    assert draw_hint(at_draw("4C 5C KD", "6C")) == ("discard", "6C", True, 0)


def test_a_discard_that_extends_a_meld_without_going_out_is_taken() -> None:
    # Round 2 (fours wild): 8 8 + Q J; the third 8 melds, the jack goes, the queen stays: 10 points.
    assert draw_hint(at_draw("8H 8S QD JC", "8C", round_number=2)) == ("discard", "8C", False, 10)


def test_a_card_that_fits_no_meld_is_left_for_the_stock() -> None:
    # 9 9 K (28 points, the best the hand can do as it is); a king of another suit changes nothing.
    assert draw_hint(at_draw("9C 9H KS", "KD")) == ("stock", None, False, 28)


def test_a_hand_that_already_melds_draws_from_the_stock_and_goes_out() -> None:
    # 5 6 7 of hearts melds as it is: whatever comes from the stock is thrown, going out (a tie: the stock).
    assert draw_hint(at_draw("5H 6H 7H", "8H")) == ("stock", None, True, 0)


def test_the_draw_hint_is_the_same_every_time_and_changes_nothing() -> None:
    state = at_draw("9C 9H KS", "9D")
    before = state.to_dict()
    assert {hint(state, 0) for _ in range(5)} == {DrawHint("discard", Card.parse("9D"), True, 0)}
    assert state.to_dict() == before


@pytest.mark.parametrize("seed", range(4))
def test_the_draw_hint_takes_the_discard_only_when_it_lowers_the_best_penalty(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(30):  # rounds 1 to 4: hands of 3 to 6 cards before the draw, small enough for the oracle
        options = Options(hints=True, jokers=rng.random() < 0.3, ace_high_low=rng.random() < 0.3)
        round_number = rng.randint(1, 4)
        players = rng.randint(2, 4)
        state = new_game(players, options, rng.randrange(1 << 30))
        state = replace(state, **_deal(players, options, rng.randrange(1 << 30), round_number, state.dealer))
        seat = state.turn
        hand, top = list(state.hands[seat]), state.discard[-1]
        kept = oracle_min_penalty(hand, state.wild_rank, options)
        with_top = [*hand, top]
        taken = min(
            oracle_min_penalty([c for j, c in enumerate(with_top) if j != i], state.wild_rank, options)
            for i in range(len(with_top))
        )
        found = hint(state, seat)
        assert isinstance(found, DrawHint)
        if taken < kept:
            outs = oracle_go_out_discards(with_top, state.wild_rank, options)
            assert found == DrawHint("discard", top, bool(outs), taken)
        else:
            assert found == DrawHint("stock", None, kept == 0, kept)


def test_a_seat_the_table_allows_may_ask_with_hints_off_and_no_other() -> None:
    state = at_draw("9C 9H KS", "9D", options=Options())
    with pytest.raises(IllegalAction, match="hints are off"):
        hint(state, 0)
    with pytest.raises(IllegalAction, match="hints are off"):
        hint(replace(state, options=Options(hints=True)), 0, allowed=False)
    assert draw_hint(state, allowed=True) == ("discard", "9D", True, 0)
    drawn = tuple(Card.parse(c) for c in ("9C", "9H", "KS", "9D"))
    after = replace(state, phase="discard", hands=(drawn, state.hands[1]))
    assert hint(after, 0, allowed=True) == Hint(Card.parse("KS"), True, 0)


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
        assert isinstance(found, Hint)
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
    assert isinstance(hint(replace(state, phase="draw"), 0), DrawHint)  # before the draw: a pile
    with pytest.raises(GameOver):
        hint(replace(state, phase="game_over"), 0)


def test_the_option_round_trips_and_is_off_by_default() -> None:
    assert Options().hints is False
    assert Options.from_dict({"hints": True}).hints is True
    state = at_discard("5H 6H 9C KS")
    assert GameState.from_dict(state.to_dict()).options.hints is True
