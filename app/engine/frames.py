"""A finished game, step by step with every hand open: the frames of the replay viewer.

``replay_steps(players, options, seed, actions)`` rebuilds the game from its record (as
``game.replay`` does) and returns one frame per moment worth showing:

- ``deal``: a round has just been dealt (no action);
- ``move``: the state after one ``(seat, action)`` of the log;
- ``round_end``: the move that ended a round, shown with the hands as that round ended (arranged into
  melds, with penalties) and its ``result``, before the next deal. The last one has ``phase`` game_over.

A frame is the shared ``TableView`` (built by the same ``table_fields`` as every seat's view) plus every
hand. Only for finished games: every frame shows every hand. (Not named ``replay.py``: a submodule of that
name would shadow the ``replay`` function the package exports.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Literal

from .cards import Card
from .game import Action, Draw, GameState, action_from_dict, action_to_dict, apply, new_game
from .options import Options
from .solver import Arrangement, best_arrangement
from .views import HandView, RoundReveal, TableView, table_fields

ActionLike = Action | dict[str, Any]


@dataclass(frozen=True, slots=True)
class ReplayFrame(TableView):
    index: int
    kind: Literal["deal", "move", "round_end"]
    seat: int | None
    action: dict[str, str] | None
    card: str | None
    reshuffled: bool
    drawn: str | None
    hands: list[HandView]
    result: RoundReveal | None


@lru_cache(maxsize=4096)
def _arranged(hand: tuple[Card, ...], wild: int, options: Options) -> Arrangement:
    return best_arrangement(hand, wild, options)


def _frame(
    state: GameState,
    *,
    index: int,
    kind: Literal["deal", "move", "round_end"],
    seat: int | None = None,
    action: dict[str, str] | None = None,
    card: Card | None = None,
    reshuffled: bool = False,
) -> ReplayFrame:
    """The state as the viewer shows it (the round being played, or just dealt)."""
    wild = state.wild_rank
    return ReplayFrame(
        **table_fields(state),  # type: ignore[arg-type]
        index=index,
        kind=kind,
        seat=seat,
        action=action,
        card=str(card) if card is not None else None,
        reshuffled=reshuffled,
        drawn=str(state.drawn) if state.drawn is not None else None,
        hands=[
            HandView.of(s, hand, _arranged(hand, wild, state.options)) for s, hand in enumerate(state.hands)
        ],
        result=None,
    )


def _round_end_frame(
    before: GameState, after: GameState, *, index: int, seat: int, action: dict[str, str], card: Card
) -> ReplayFrame:
    """The move that ended a round: the hands as they ended, the discard it made, the round's result."""
    result = RoundReveal.of(after.results[-1])
    frame = _frame(before, index=index, kind="round_end", seat=seat, action=action, card=card)
    return replace(
        frame,
        turn=None,
        phase="game_over" if after.is_over else "round_end",
        drawn=None,
        went_out=result.went_out,
        final_turns=0,
        hands=result.hands,
        discard_top=str(card),
        discard_count=len(before.discard) + 1,
        stock_count=len(before.stock),
        scores=after.scores(),
        totals=after.totals(),
        winners=after.winners(),
        result=result,
    )


def replay_steps(
    players: int,
    options: Options | dict[str, Any] | None,
    seed: int,
    actions: Sequence[tuple[int, ActionLike]],
) -> list[ReplayFrame]:
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
