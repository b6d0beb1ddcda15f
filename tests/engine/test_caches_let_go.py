"""What the engine keeps of a game's finished rounds goes when the game does (issue 39's soak).

A state's snapshot (``GameState.to_dict``) and every view reuse what they built of each finished round
(``game._RESULT_DICTS``, ``views._RESULTS_CACHE``). Those caches were keyed by ``id`` and held the rounds'
results themselves, so every round of every game the process ever played stayed until 4,096 (about 3 KiB
each) or 512 (about 4 KiB each) had piled up: in the 30-minute soak they grew all along. Now each entry
lasts as long as its round's result, that is as long as some state of its game is held (a loaded room's).
"""

from __future__ import annotations

import gc

from app.engine import Options, apply, new_game, view_for
from app.engine import game as game_module
from app.engine import views as views_module
from app.engine.bots import choose_action
from app.engine.game import GameState, RoundResult


def play(seed: int, rounds: int) -> GameState:
    """A game of two easy bots, its snapshot and views made at every move, until ``rounds`` rounds ended."""
    state = new_game(2, Options(), seed)
    while len(state.results) < rounds:
        seat = state.turn
        state, _events = apply(state, seat, choose_action(state, seat, "easy", seed))
        state.to_dict()
        for viewer in (None, 0, 1):
            view_for(state, viewer)
    return state


def alive_results() -> int:
    return sum(1 for o in gc.get_objects() if type(o) is RoundResult)


def test_a_dropped_game_leaves_nothing_of_its_rounds_in_the_caches() -> None:
    gc.collect()
    dicts, finished, results = (
        len(game_module._RESULT_DICTS),
        len(views_module._RESULTS_CACHE),
        alive_results(),
    )
    state = play(seed=5, rounds=3)
    assert len(game_module._RESULT_DICTS) == dicts + 3  # while the game is held, each round's dict is kept
    assert alive_results() == results + 3
    del state
    # Reference counting alone frees them (nothing holds them in a cycle): no collection here.
    assert alive_results() == results
    assert len(game_module._RESULT_DICTS) == dicts
    # Every game's first round shares one entry (no results yet), kept; none of this game's rounds stays.
    assert len(views_module._RESULTS_CACHE) <= finished + 1


def test_the_cached_dicts_and_lines_are_the_rounds_own() -> None:
    state = play(seed=6, rounds=2)
    assert state.to_dict()["results"] == [r.to_dict() for r in state.results]
    view = view_for(state, None)
    again = GameState.from_dict(state.to_dict())  # other result objects, the same rounds
    assert view_for(again, None) == view
    assert again.to_dict()["results"] == state.to_dict()["results"]
