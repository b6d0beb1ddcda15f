"""A table played at its own pace, in the browser (issue 35): the host chooses the pace in the lobby, in
English and Persian, on a phone and a laptop; the game carries it, and the turn's countdown reads in hours
and minutes rather than thousands of seconds."""

from __future__ import annotations

import re
from typing import Any

import pytest

from .conftest import open_lobby, screenshot
from .test_client import take_turn
from .test_table import SocketTap

LABELS = {"en": "8 h a turn", "fa": "۸ ساعت برای هر نوبت"}
HOURS_LEFT = {"en": r"^[78] h [0-9]+ min$", "fa": r"^[۷۸] ساعت و [۰-۹]+ دقیقه$"}


@pytest.mark.parametrize(
    ("lang", "width", "height"), [("en", 390, 844), ("fa", 390, 844), ("en", 1280, 800), ("fa", 1280, 800)]
)
def test_a_host_chooses_a_pace_and_the_turn_shows_the_hours_left(
    new_page: Any, server: str, lang: str, width: int, height: int
) -> None:
    page = new_page(width, height)
    tap = SocketTap(page)
    page.goto(f"{server}/")
    page.evaluate(f"localStorage.setItem('tt.lang', '{lang}')")
    open_lobby(page, server, bot=True)
    pace = page.locator("[data-testid=lobby] #opt-pace")
    assert pace.input_value() == "live", "a new table is live"
    pace.select_option("8")
    page.wait_for_function("() => document.querySelector('#opt-pace')?.value === '8'")
    assert page.locator("#opt-pace option:checked").inner_text() == LABELS[lang]
    page.wait_for_timeout(300)  # the option's state arrives before the start
    pace.scroll_into_view_if_needed()
    screenshot(page, f"paced-lobby-{lang}-{width}.png")

    page.click("[data-testid=start]")
    page.wait_for_selector("[data-testid=table][data-my-turn='1'][data-phase='draw']")
    assert tap.last_state is not None and tap.last_state["game"]["options"]["pace"] == 8
    pill = page.locator("[data-testid=countdown]")
    assert re.match(HOURS_LEFT[lang], pill.inner_text()), pill.inner_text()
    take_turn(page)  # draw
    take_turn(page)  # discard: the bot plays, and the turn comes back with a new 8 hours
    page.wait_for_selector("[data-testid=table][data-my-turn='1'][data-phase='draw']")
    assert re.match(HOURS_LEFT[lang], pill.inner_text()), pill.inner_text()
    screenshot(page, f"paced-table-{lang}-{width}.png")
