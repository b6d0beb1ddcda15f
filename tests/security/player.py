"""A client that plays only from its own view (what any browser knows), for games driven over the wire."""

from __future__ import annotations

from typing import Any

from app.engine import Card, Options, best_arrangement


def _points(options: Options, card: str) -> int:
    return options.points(Card.parse(card))


def choose_from_view(view: dict[str, Any]) -> dict[str, Any]:
    """The move for the seat whose view this is (it must be its turn): go out when it can; draw the
    discard when it lowers the penalty; else draw the stock and throw the costliest unmelded card."""
    options = Options.from_dict(view["options"])
    hand: list[str] = view["hand"]
    if view["phase"] == "draw":
        top = view["discard_top"]
        if top is not None and "draw_discard" in view["legal"]:
            if "draw_stock" not in view["legal"]:
                return {"type": "draw", "source": "discard"}
            now = view["arrangement"]["penalty"]
            after = best_arrangement([*hand, top], view["wild_rank"], options)
            worst = max((_points(options, str(c)) for c in after.deadwood), default=0)
            if after.penalty - worst < now:
                return {"type": "draw", "source": "discard"}
        return {"type": "draw", "source": "stock"}
    if view["can_go_out"]:
        return {"type": "go_out", "card": view["can_go_out"][0]}
    deadwood: list[str] = view["arrangement"]["deadwood"] or hand
    card = max(deadwood, key=lambda c: (_points(options, c), c))
    return {"type": "discard", "card": card}
