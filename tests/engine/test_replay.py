"""replay_steps: a finished game rebuilt frame by frame with every hand open, consistent with the engine."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict
from typing import Any

import pytest

from app.engine import (
    GameError,
    GameState,
    Options,
    action_from_dict,
    action_to_dict,
    apply,
    new_game,
    replay,
)
from app.engine.bots import choose_action
from app.engine.frames import replay_steps
from app.engine.options import ROUNDS


def frames_of(*args: Any) -> list[dict[str, Any]]:
    """The frames as the history API sends them (JSON objects)."""
    return [asdict(frame) for frame in replay_steps(*args)]


def bot_game(
    players: int, seed: int, options: Options | None = None
) -> tuple[list[tuple[int, dict]], GameState]:
    state = new_game(players, options, seed)
    log: list[tuple[int, dict]] = []
    while not state.is_over:
        action = choose_action(state, state.turn, "normal", seed=state.moves)
        log.append((state.turn, action_to_dict(action)))
        state, _ = apply(state, state.turn, action)
    return log, state


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 42), (5, 7)])
def test_frames_follow_the_game_to_its_end(players: int, seed: int) -> None:
    log, final = bot_game(players, seed)
    frames = frames_of(players, Options(), seed, log)

    assert [f["index"] for f in frames] == list(range(len(frames)))
    kinds = Counter(f["kind"] for f in frames)
    assert kinds == {"deal": ROUNDS, "round_end": ROUNDS, "move": len(log) - ROUNDS}
    assert frames[0]["kind"] == "deal" and frames[0]["action"] is None and frames[0]["round"] == 1
    # Every logged action appears once, in order, on the frame it produced.
    assert [(f["seat"], f["action"]) for f in frames if f["action"]] == log

    last = frames[-1]
    assert last["kind"] == "round_end" and last["phase"] == "game_over"
    assert last["totals"] == final.totals() and last["winners"] == final.winners()
    assert last["scores"] == final.scores()
    json.dumps(frames)  # plain JSON

    for frame in frames:
        hands = frame["hands"]
        assert [h["seat"] for h in hands] == list(range(players))
        for hand in hands:  # the arrangement covers the hand exactly
            arranged = [c for m in hand["melds"] for c in m["cards"]] + hand["deadwood"]
            assert Counter(arranged) == Counter(hand["cards"])
        if frame["kind"] == "deal":
            assert all(len(h["cards"]) == frame["cards_dealt"] for h in hands)
            assert frame["turn"] == (frame["dealer"] + 1) % players and frame["phase"] == "draw"
            assert frame["scores"] == [r for r in final.scores()[: frame["round"] - 1]]
        if frame["kind"] == "round_end":
            result = frame["result"]
            assert result["round"] == frame["round"] and frame["turn"] is None
            assert [h["penalty"] for h in hands] == [h["penalty"] for h in result["hands"]]
            assert frame["scores"][-1] == final.scores()[frame["round"] - 1]
            assert hands[result["went_out"]]["penalty"] == 0
            assert frame["discard_top"] == frame["card"] == frame["action"]["card"]
            assert frame["action"]["type"] in ("discard", "go_out")


def test_each_move_frame_matches_the_engine_state() -> None:
    log, _ = bot_game(2, 5)
    frames = [f for f in frames_of(2, Options(), 5, log) if f["kind"] == "move"]
    state = new_game(2, None, 5)
    by_move = iter(frames)
    for seat, action in log:
        before = state
        state, events = apply(state, seat, action_from_dict(action))
        if len(state.results) > len(before.results):
            continue
        frame = next(by_move)
        assert [h["cards"] for h in frame["hands"]] == [[str(c) for c in hand] for hand in state.hands]
        assert frame["stock_count"] == len(state.stock) and frame["discard_count"] == len(state.discard)
        assert frame["discard_top"] == (str(state.discard[-1]) if state.discard else None)
        assert frame["turn"] == state.turn and frame["phase"] == state.phase
        assert frame["drawn"] == (str(state.drawn) if state.drawn else None)
        if action["type"] == "draw":  # every hand is open: even a card drawn from the stock is named
            assert frame["card"] == str(state.drawn)
    assert next(by_move, None) is None


def test_options_as_a_dict_and_the_same_record_gives_the_same_frames() -> None:
    options = Options(jokers=True)
    log, final = bot_game(3, 9, options)
    frames = frames_of(3, options.to_dict(), 9, log)
    assert frames == frames_of(3, options, 9, log)
    assert (
        frames[-1]["totals"]
        == replay(3, options, 9, [(s, action_from_dict(a)) for s, a in log]).totals()
        == final.totals()
    )


def test_an_illegal_log_is_refused() -> None:
    log, _ = bot_game(2, 3)
    seat, _action = log[0]
    with pytest.raises(GameError):
        frames_of(2, None, 3, [(1 - seat, {"type": "draw", "source": "stock"})])
    with pytest.raises(GameError):
        frames_of(2, None, 3, [(seat, {"type": "discard", "card": "AS"})])
