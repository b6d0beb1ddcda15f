"""The engine's hot paths leave no reference cycles behind: every object a move makes is freed by
reference counting, so the server's cycle collector (tuned in app.runtime) has nothing to find."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

from app.engine import Options, apply, new_game, view_for
from app.engine.bots import choose_action
from app.engine.solver import best_arrangement, go_out_discards

ROOT = Path(__file__).resolve().parents[2]


def cyclic_garbage_of_whole_games() -> int:
    """Two whole games with views and bots, the collector off; how many objects only it could free."""
    gc.collect()
    gc.disable()
    for seed, options in ((1, Options()), (2, Options(jokers=True, decks=2))):
        state = new_game(4, options, seed)
        while not state.is_over:
            seat = state.turn
            state, _events = apply(state, seat, choose_action(state, seat, "hard", seed))
            for viewer in (None, 0, 1, 2, 3):
                view_for(state, viewer)
            best_arrangement(state.hands[seat], state.wild_rank, options)
            go_out_discards(state.hands[seat], state.wild_rank, options)
    return gc.collect()


def test_a_whole_game_with_views_and_bots_leaves_no_cyclic_garbage() -> None:
    """In a process of its own: the test worker's other threads (xdist's, a test's leftovers) may make
    cyclic garbage of their own while the collector is off."""
    code = "from tests.engine.test_no_cycles import cyclic_garbage_of_whole_games as f; print(f())"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "0", f"cyclic garbage left: {result.stdout.strip()} objects"


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
