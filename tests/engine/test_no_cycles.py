"""The engine's hot paths leave no reference cycles behind: every object a move makes is freed by
reference counting, so the server's cycle collector (tuned in app.runtime) has nothing to find."""

from __future__ import annotations

import gc
import subprocess
import sys
from collections.abc import Iterator

import pytest

from app.engine import Options, apply, new_game, view_for
from app.engine.bots import choose_action
from app.engine.solver import best_arrangement, go_out_discards


@pytest.fixture
def collector_off() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def test_a_whole_game_with_views_and_bots_leaves_no_cyclic_garbage(collector_off: None) -> None:
    for seed, options in ((1, Options()), (2, Options(jokers=True, decks=2))):
        state = new_game(4, options, seed)
        while not state.is_over:
            seat = state.turn
            state, _events = apply(state, seat, choose_action(state, seat, "hard", seed))
            for viewer in (None, 0, 1, 2, 3):
                view_for(state, viewer)
            best_arrangement(state.hands[seat], state.wild_rank, options)
            go_out_discards(state.hands[seat], state.wild_rank, options)
    assert gc.collect() == 0


def test_tune_gc_freezes_start_up_objects_and_then_what_survives_each_young_run() -> None:
    code = (
        "import gc; from app.runtime import tune_gc, YOUNG; "
        "assert gc.get_freeze_count() == 0; tune_gc(); "
        "assert gc.get_threshold()[0] == YOUNG, gc.get_threshold(); "
        "frozen = gc.get_freeze_count(); assert frozen > 1000, frozen; "
        "kept = [[i] for i in range(3 * YOUNG)]; "
        "assert gc.get_freeze_count() >= frozen + 2 * YOUNG, gc.get_freeze_count(); print('ok')"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr
