"""Bot decisions (pure and seeded). Levels: random, easy, normal, hard."""

from __future__ import annotations

import random

from .errors import IllegalAction
from .game import Action, Discard, Draw, GameState, GoOut, legal_actions
from .options import BOT_LEVELS
from .solver import best_arrangement, min_penalty


def choose_action(state: GameState, seat: int, level: str = "normal", seed: int = 0) -> Action:
    """The action a bot of ``level`` takes for ``seat`` now; deterministic given ``seed``."""
    if level not in BOT_LEVELS:
        raise IllegalAction(f"bot level must be one of {', '.join(BOT_LEVELS)}, got {level!r}")
    actions = legal_actions(state, seat)
    if not actions:
        raise IllegalAction(f"seat {seat} has nothing to do now")
    rng = random.Random(f"{seed}/{state.moves}/{seat}")
    go_out = [a for a in actions if isinstance(a, GoOut)]
    if go_out and level != "random":
        return go_out[0]
    if level == "random":
        return rng.choice(actions)
    return _normal(state, seat, actions)


def _normal(state: GameState, seat: int, actions: list[Action]) -> Action:
    hand = list(state.hands[seat])
    wild, options = state.wild_rank, state.options
    if state.phase == "draw":
        if state.discard and any(isinstance(a, Draw) and a.source == "discard" for a in actions):
            now = best_arrangement(hand, wild, options)
            worst = max(now.deadwood, key=options.points, default=None)
            with_top = [*hand, state.discard[-1]]
            kept = list(with_top)
            if worst is not None:
                kept.remove(worst)
            if min_penalty(kept, wild, options) < now.penalty:
                return Draw("discard")
        return Draw("stock") if any(a == Draw("stock") for a in actions) else Draw("discard")
    best: tuple[int, int, Action] | None = None
    for action in actions:
        if not isinstance(action, Discard):
            continue
        rest = list(hand)
        rest.remove(action.card)
        score = (min_penalty(rest, wild, options), -options.points(action.card))
        if best is None or score < best[:2]:
            best = (*score, action)
    assert best is not None
    return best[2]
