"""Who plays next: the table's strip with the previous, current and next player, in Chromium at phone and
laptop size, in English and Persian (right to left): the right names, the current one highlighted, turns
moving on, "end of round" on the last final turn, and the strip never over the hand or the piles."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import screenshot
from .test_table import render_table

pytestmark = pytest.mark.e2e

NAMES = {
    "en": {"prev": "Sara", "now": "Omid", "next": "Nima", "bot": "Bot 4", "end": "End of round"},
    "fa": {"prev": "Sara", "now": "Omid", "next": "Nima", "bot": "رایانه ۴", "end": "پایان دور"},
}
SIZES = [(390, 844), (1280, 800)]

BOX = """sel => { const r = document.querySelector(sel).getBoundingClientRect();
  return [r.left, r.top, r.right, r.bottom]; }"""


def box(page: Any, selector: str) -> list[float]:
    return [float(v) for v in page.evaluate(BOX, selector)]


def overlaps(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def strip_names(page: Any) -> dict[str, str]:
    return {
        role: page.locator(f"[data-testid=strip-{role}] .turn-name").inner_text()
        for role in ("prev", "now", "next")
    }


@pytest.mark.parametrize("lang", ["en", "fa"])
@pytest.mark.parametrize(("width", "height"), SIZES)
def test_the_strip_shows_who_played_who_plays_and_who_is_next(
    new_page: Any, server: str, lang: str, width: int, height: int
) -> None:
    page = new_page(width, height, lang, reduced_motion="reduce")
    render_table(page, server, lang, players=4, game={"turn": 1, "legal": [], "phase": "draw"})
    strip = page.locator("[data-testid=turn-strip]")
    strip.wait_for()
    words = NAMES[lang]
    assert strip_names(page) == {role: words[role] for role in ("prev", "now", "next")}
    # The current player is the highlighted one, and says so to a screen reader.
    assert (
        page.locator("[data-testid=turn-strip] [aria-current=step]").get_attribute("data-testid")
        == "strip-now"
    )
    now_border = page.evaluate(
        "getComputedStyle(document.querySelector('[data-testid=strip-now]')).borderTopColor"
    )
    prev_border = page.evaluate(
        "getComputedStyle(document.querySelector('[data-testid=strip-prev]')).borderTopColor"
    )
    assert now_border != prev_border, (now_border, prev_border)

    # Read in the page's direction: left to right in English, right to left in Persian.
    lefts = [box(page, f"[data-testid=strip-{role}]")[0] for role in ("prev", "now", "next")]
    assert lefts == sorted(lefts, reverse=(lang == "fa")), lefts
    # It fits the width and covers neither the hand nor the piles.
    strip_box = box(page, "[data-testid=turn-strip]")
    assert strip_box[0] >= 0 and strip_box[2] <= width, strip_box
    for other in (".hand-panel", ".piles", ".players"):
        assert not overlaps(strip_box, box(page, other)), other
    # On a phone the hand is still on the first screen, below the strip.
    assert box(page, ".hand .card")[3] <= height
    screenshot(page, f"turn-strip-{lang}-{width}.png")

    # The turn moves on: the strip follows (a bot's name in the page's language).
    page.evaluate("() => window.__update({ turn: 2 })")
    page.wait_for_function(
        "() => document.querySelector('[data-testid=strip-now] .turn-name').textContent === 'Nima'"
    )
    assert strip_names(page) == {"prev": "Omid", "now": "Nima", "next": words["bot"]}
    # The last of the final turns: the round ends after it, so no one is "next".
    page.evaluate("() => window.__update({ turn: 0, went_out: 2, final_turns: 1 })")
    page.wait_for_function(
        "() => document.querySelector('[data-testid=strip-now] .turn-name').textContent === 'Sara'"
    )
    assert strip_names(page) == {"prev": words["bot"], "now": "Sara", "next": words["end"]}
    if width == 390:
        screenshot(page, f"turn-strip-last-turn-{lang}-{width}.png")
    # Once the game is over there is no turn to show.
    page.evaluate("() => window.__update({ phase: 'game_over', winners: [0] })")
    page.wait_for_selector("[data-testid=turn-strip]", state="detached")
