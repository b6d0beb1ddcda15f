"""Per-seat views: the only path by which game state leaves the server.

A view holds what that seat may know and nothing else: its own hand (with its best arrangement and the
cards it may go out with), the other hands as counts, the discard top, the stock as a count, a line per
finished round, and the revealed hands of the last finished round (older reveals are on the history API:
a view stays small however far the game has gone). Never the seed, the stock order, or another seat's
cards in a round still being played.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from .cards import Card, rank_name
from .game import GameState, RoundResult, can_draw_stock, go_out_cards
from .options import ROUNDS, Options, cards_dealt
from .solver import Arrangement, best_arrangement


@lru_cache(maxsize=8192)
def _arrangement(hand: tuple[Card, ...], wild: int, options: Options) -> Arrangement:
    """Views are built for every socket on every move, but a hand rarely changes: remember its arrangement."""
    return best_arrangement(hand, wild, options)


_RESULTS_CACHE: dict[int, tuple[tuple[RoundResult, ...], list[dict[str, Any]], dict[str, Any] | None]] = {}


def _results(results: tuple[RoundResult, ...]) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """(a summary line per finished round, the last round's full reveal); successive states share one
    results tuple, so this is built once per round."""
    cached = _RESULTS_CACHE.get(id(results))
    if cached is None or cached[0] is not results:
        if len(_RESULTS_CACHE) > 512:
            _RESULTS_CACHE.clear()
        last = results[-1].to_dict() if results else None
        cached = (results, [r.summary() for r in results], last)
        _RESULTS_CACHE[id(results)] = cached
    return cached[1], cached[2]


def _public(state: GameState) -> dict[str, Any]:
    totals = state.totals()
    summaries, last_result = _results(state.results)
    return {
        "round": state.round,
        "rounds": ROUNDS,
        "wild_rank": rank_name(state.wild_rank),
        "cards_dealt": cards_dealt(state.round),
        "dealer": state.dealer,
        "turn": None if state.is_over else state.turn,
        "phase": state.phase,
        "went_out": state.went_out,
        "final_turns": state.final_turns,
        "stock_count": len(state.stock),
        "discard_top": str(state.discard[-1]) if state.discard else None,
        "discard_count": len(state.discard),
        "moves": state.moves,
        "players": [
            {"seat": seat, "card_count": len(state.hands[seat]), "total": totals[seat]}
            for seat in range(state.players)
        ],
        "scores": state.scores(),
        "totals": totals,
        "winners": state.winners(),
        "results": summaries,
        "last_result": last_result,
        "options": state.options.to_dict(),
    }


def spectator_view(state: GameState) -> dict[str, Any]:
    """What anyone watching the table may see."""
    view = _public(state)
    view.update(
        {"seat": None, "hand": None, "arrangement": None, "drawn": None, "can_go_out": [], "legal": []}
    )
    return view


def view_for(state: GameState, seat: int | None) -> dict[str, Any]:
    """What ``seat`` may see (``None``: a spectator)."""
    if seat is None:
        return spectator_view(state)
    if not 0 <= seat < state.players:
        raise ValueError(f"seat {seat} is not at this table")
    view = _public(state)
    hand = state.hands[seat]
    my_turn = not state.is_over and state.turn == seat
    legal: list[str] = []
    if my_turn and state.phase == "draw":
        legal = ["draw_stock"] if can_draw_stock(state) else []
        if state.discard:
            legal.append("draw_discard")
    elif my_turn and state.phase == "discard":
        legal = ["discard"]
    go_out = [str(c) for c in go_out_cards(state, seat)]
    if go_out:
        legal.append("go_out")
    view.update(
        {
            "seat": seat,
            "hand": [str(c) for c in hand],
            "arrangement": None
            if state.is_over
            else _arrangement(hand, state.wild_rank, state.options).to_dict(),
            "drawn": str(state.drawn) if my_turn and state.drawn else None,
            "can_go_out": go_out,
            "legal": legal,
        }
    )
    return view
