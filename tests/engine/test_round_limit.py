"""A round in which nobody goes out ends at the turn limit (docs/rules.md): every hand scored as it lies,
nobody's 0 for going out, the next round dealt as usual; the game replays exactly, frames included."""

from __future__ import annotations

import json
from dataclasses import replace

from app.engine import (
    Action,
    Discard,
    Draw,
    GameState,
    Options,
    action_to_dict,
    apply,
    new_game,
    replay,
)
from app.engine.frames import replay_steps
from app.engine.game import TURN_LIMIT, TURNS_PER_SEAT_LIMIT, Event, RoundResult, turns_taken
from app.engine.solver import best_arrangement


def stall(state: GameState) -> tuple[int, Action]:
    """A stalling player: take the discard pile's top card and throw the same card back, for ever."""
    seat = state.turn
    if state.phase == "draw":
        return seat, Draw("discard")
    assert state.drawn is not None
    return seat, Discard(state.drawn)


def play_stalling(
    players: int, seed: int, turns: int
) -> tuple[GameState, list[tuple[int, Action]], list[Event]]:
    state, actions, events = new_game(players, Options(), seed), [], []
    for _ in range(2 * turns):
        seat, action = stall(state)
        state, happened = apply(state, seat, action)
        actions.append((seat, action))
        events.extend(happened)
    return state, actions, events


def test_a_stalled_round_ends_at_the_turn_limit_and_every_hand_scores_as_it_lies() -> None:
    players = 3
    limit = TURNS_PER_SEAT_LIMIT * players
    before, _, _ = play_stalling(players, seed=5, turns=limit - 1)
    assert before.round == 1 and turns_taken(before) == limit - 1 and before.went_out is None

    after, _, events = play_stalling(players, seed=5, turns=limit)
    ends = [e for e in events if e.kind == "round_end"]
    assert len(ends) == 1, "the round ends with the limit's turn, not before"
    assert ends[0].for_seat(None) == {
        "kind": "round_end",
        "round": 1,
        "penalties": list(after.results[0].penalties),
        "reason": TURN_LIMIT,
    }
    assert [e.kind for e in events][-2:] == ["round_end", "round_start"]

    result = after.results[0]
    assert result.went_out is None
    expected = [best_arrangement(hand, before.wild_rank, before.options).penalty for hand in before.hands]
    assert list(result.penalties) == expected, (
        "each hand in its best arrangement; nobody scores 0 for going out"
    )
    assert after.round == 2 and after.dealer == (before.dealer + 1) % players and turns_taken(after) == 0


def test_a_round_cut_short_replays_and_is_stored_exactly() -> None:
    players = 2
    state, actions, _ = play_stalling(players, seed=11, turns=TURNS_PER_SEAT_LIMIT * players + 3)
    assert state.round == 2
    assert replay(players, Options(), 11, actions) == state
    assert GameState.from_dict(json.loads(json.dumps(state.to_dict()))) == state
    assert RoundResult.from_dict(state.results[0].to_dict()) == state.results[0]
    steps = replay_steps(players, Options(), 11, [(seat, action_to_dict(a)) for seat, a in actions])
    ended = [frame for frame in steps if frame.kind == "round_end"]
    assert len(ended) == 1 and ended[0].round == 1 and ended[0].went_out is None


def test_the_final_turns_after_a_go_out_are_never_cut_by_the_limit() -> None:
    """The limit counts only while nobody is out: once someone is, every final turn is played."""
    players = 3
    limit = TURNS_PER_SEAT_LIMIT * players
    state, _, _ = play_stalling(players, seed=7, turns=limit - 1)
    out = (state.turn + 2) % players  # went out a turn ago, in this made-up position; two final turns owed
    state = replace(state, went_out=out, final_turns=2)
    for turn in (1, 2):
        for _ in range(2):
            state, events = apply(state, *stall(state))
        ends = [e.for_seat(None) for e in events if e.kind == "round_end"]
        if turn == 1:
            assert state.round == 1 and turns_taken(state) == limit and not ends
        else:
            assert state.round == 2 and state.results[0].went_out == out
            assert len(ends) == 1 and "reason" not in ends[0]
