"""A finished game, step by step with every hand open: the frames of the replay viewer.

``replay_steps(players, options, seed, actions)`` rebuilds the game from its record (as
``game.replay`` does) and returns one JSON-ready frame per moment worth showing:

- ``deal``: a round has just been dealt (no action);
- ``move``: the state after one ``(seat, action)`` of the log;
- ``round_end``: the move that ended a round, shown with the hands as that round ended (arranged into
  melds, with penalties) and its ``result``, before the next deal. The last one has ``phase`` game_over.

Only for finished games: every frame shows every hand. (Not named ``replay.py``: a submodule of that name
would shadow the ``replay`` function the package exports.)
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from .cards import Card, rank_name
from .game import Action, Draw, GameState, RoundResult, action_from_dict, action_to_dict, apply, new_game
from .options import Options, cards_dealt
from .solver import Arrangement, best_arrangement

ActionLike = Action | dict[str, Any]


@lru_cache(maxsize=4096)
def _arranged(hand: tuple[Card, ...], wild: int, options: Options) -> Arrangement:
    return best_arrangement(hand, wild, options)


def _hand(seat: int, cards: tuple[Card, ...], arrangement: Arrangement) -> dict[str, Any]:
    return {"seat": seat, "cards": [str(c) for c in cards], **arrangement.to_dict()}


def _frame(
    state: GameState,
    *,
    index: int,
    kind: str,
    seat: int | None = None,
    action: dict[str, str] | None = None,
    card: Card | None = None,
    reshuffled: bool = False,
) -> dict[str, Any]:
    """The state as the viewer shows it (the round being played, or just dealt)."""
    wild = state.wild_rank
    hands = [
        _hand(s, hand, _arranged(tuple(hand), wild, state.options)) for s, hand in enumerate(state.hands)
    ]
    return {
        "index": index,
        "kind": kind,
        "seat": seat,
        "action": action,
        "card": str(card) if card is not None else None,
        "reshuffled": reshuffled,
        "round": state.round,
        "wild_rank": rank_name(wild),
        "cards_dealt": cards_dealt(state.round),
        "dealer": state.dealer,
        "turn": None if state.is_over else state.turn,
        "phase": state.phase,
        "drawn": str(state.drawn) if state.drawn is not None else None,
        "went_out": state.went_out,
        "final_turns": state.final_turns,
        "hands": hands,
        "discard_top": str(state.discard[-1]) if state.discard else None,
        "discard_count": len(state.discard),
        "stock_count": len(state.stock),
        "scores": state.scores(),
        "totals": state.totals(),
        "winners": state.winners(),
        "result": None,
    }


def _round_end_frame(
    before: GameState, after: GameState, *, index: int, seat: int, action: dict[str, str], card: Card
) -> dict[str, Any]:
    """The move that ended a round: the hands as they ended, the discard it made, the round's result."""
    result: RoundResult = after.results[-1]
    totals = [sum(r.penalties[s] for r in after.results) for s in range(after.players)]
    frame = _frame(before, index=index, kind="round_end", seat=seat, action=action, card=card)
    frame.update(
        {
            "turn": None,
            "phase": "game_over" if after.is_over else "round_end",
            "drawn": None,
            "went_out": result.went_out,
            "final_turns": 0,
            "hands": [
                _hand(s, cards, arrangement)
                for s, (cards, arrangement) in enumerate(zip(result.hands, result.arrangements, strict=True))
            ],
            "discard_top": str(card),
            "discard_count": len(before.discard) + 1,
            "stock_count": len(before.stock),
            "scores": after.scores(),
            "totals": totals,
            "winners": after.winners(),
            "result": result.to_dict(),
        }
    )
    return frame


def replay_steps(
    players: int,
    options: Options | dict[str, Any] | None,
    seed: int,
    actions: Sequence[tuple[int, ActionLike]],
) -> list[dict[str, Any]]:
    """Every frame of a game rebuilt from its record; illegal logs raise the engine's GameError."""
    if isinstance(options, dict):
        options = Options.from_dict(options)
    state = new_game(players, options, seed)
    frames = [_frame(state, index=0, kind="deal")]
    for seat, raw in actions:
        action = raw if not isinstance(raw, dict) else action_from_dict(raw)
        before = state
        state, events = apply(state, seat, action)
        as_dict = action_to_dict(action)
        card = next((e.card for e in events if e.kind in ("draw", "discard", "go_out")), None)
        reshuffled = any(e.kind == "reshuffle" for e in events)
        index = len(frames)
        if len(state.results) > len(before.results):
            assert card is not None and not isinstance(action, Draw)
            frames.append(_round_end_frame(before, state, index=index, seat=seat, action=as_dict, card=card))
            if not state.is_over:
                frames.append(_frame(state, index=index + 1, kind="deal"))
        else:
            frames.append(
                _frame(
                    state,
                    index=index,
                    kind="move",
                    seat=seat,
                    action=as_dict,
                    card=card,
                    reshuffled=reshuffled,
                )
            )
    return frames
