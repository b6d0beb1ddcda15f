"""What a person is typing survives the page being drawn again meanwhile (issue 33): the home page's name, a
room link's join form, the standings' search, a spectator's request for a bot's seat. Each page is drawn
again while the text is half typed (its data arriving late, or the language switched from elsewhere, the
keyboard still in the field), and the field keeps its text and the keyboard, and the form then does what it
is for."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import httpx
import pytest

pytestmark = pytest.mark.e2e

# The language switched while the keyboard stays in the field (as another tab of the same browser would, or a
# late module drawing the page: a render of every view, the field not clicked away from).
SWITCH = "async (lang) => (await import('/static/js/i18n.js')).setLang(lang)"
FOCUSED = "() => document.activeElement?.dataset?.testid ?? document.activeElement?.tagName"


def held_until_typed(page: Any, pattern: str) -> list[Any]:
    """Hold every request matching ``pattern`` (answered by release())."""
    held: list[Any] = []
    page.route(pattern, lambda route: held.append(route))
    return held


def release(page: Any, held: list[Any]) -> None:
    for _ in range(200):  # the route's handler runs while Playwright waits
        if held:
            break
        page.wait_for_timeout(50)
    assert held, "the request was made"
    for route in held:
        route.continue_()


def switch_language_from_elsewhere(page: Any, lang: str, button: str) -> None:
    """Switch the page to the other language than ``lang`` without touching it (``SWITCH``), and wait until
    the button ``button`` (a data-testid) shows its words in that language: every view was drawn again."""
    words = page.locator(f"[data-testid={button}]").text_content()
    page.evaluate(SWITCH, "fa" if lang == "en" else "en")
    page.wait_for_function(
        f"(t) => document.querySelector('[data-testid={button}]')?.textContent !== t", arg=words
    )


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_the_standings_search_keeps_a_name_typed_while_the_board_arrives(
    new_page: Any, server: str, lang: str
) -> None:
    page = new_page(390, 844, lang)
    held = held_until_typed(page, "**/api/leaderboard?*")
    page.goto(f"{server}/standings")
    page.locator("[data-testid=find-player]").type("Nobody Her")
    release(page, held)  # the board comes: the page is drawn again
    page.wait_for_selector("[data-testid=players-board], [data-testid=no-records]")
    page.keyboard.type("e")
    assert page.input_value("[data-testid=find-player]") == "Nobody Here"
    assert page.evaluate(FOCUSED) == "find-player"
    with page.expect_request(f"**/api/players/{quote('Nobody Here')}"):
        page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=player-missing]")
    assert page.url == f"{server}/standings/{quote('Nobody Here')}"


def test_the_standings_search_keeps_its_name_through_a_language_switch(new_page: Any, server: str) -> None:
    page = new_page(1280, 800)
    page.goto(f"{server}/standings")
    page.wait_for_selector("[data-testid=players-board], [data-testid=no-records]")
    page.locator("[data-testid=find-player]").type("Nobody")
    page.evaluate(SWITCH, "fa")
    page.wait_for_function("() => document.documentElement.lang === 'fa'")
    page.wait_for_selector("[data-testid=standings] h1:has-text('رده‌بندی')")
    assert page.input_value("[data-testid=find-player]") == "Nobody"
    assert page.evaluate(FOCUSED) == "find-player"
    with page.expect_request("**/api/players/Nobody"):
        page.click("[data-testid=find-button]")


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_the_home_page_keeps_the_names_and_code_typed_through_a_language_switch(
    new_page: Any, server: str, lang: str
) -> None:
    page = new_page(390, 844, lang)
    page.goto(f"{server}/")
    page.locator("[data-testid=create-name]").type("Omid")
    page.click("[data-testid=add-bot]")
    page.select_option("[data-testid=create-seats]", "3")
    page.locator("[data-testid=create-name]").focus()
    switch_language_from_elsewhere(page, lang, "create")
    page.keyboard.type("!")
    assert page.input_value("[data-testid=create-name]") == "Omid!"
    assert page.evaluate(FOCUSED) == "create-name"
    assert page.input_value("[data-testid=create-seats]") == "3"
    assert page.locator(".bots .bot-row").count() == 1  # the bot added stays
    page.fill("[data-testid=create-name]", "Omid")
    page.click("[data-testid=create]")
    page.wait_for_selector("[data-testid=lobby]")
    assert page.locator("[data-testid=seat-0]").inner_text().count("Omid") == 1
    assert page.locator("[data-testid^=seat-]").count() == 2  # Omid and the bot


def test_the_join_form_keeps_a_name_typed_through_a_language_switch(new_page: Any, server: str) -> None:
    code = httpx.post(f"{server}/api/rooms", json={"name": "Sara"}).json()["code"]
    page = new_page(390, 844)
    page.goto(f"{server}/r/{code}")
    page.locator("[data-testid=join-name]").type("Omi")
    page.evaluate(SWITCH, "fa")
    page.wait_for_function("() => document.documentElement.lang === 'fa'")
    page.wait_for_selector("[data-testid=watch]:has-text('تماشا')")
    page.keyboard.type("d")
    assert page.input_value("[data-testid=join-name]") == "Omid"
    assert page.evaluate(FOCUSED) == "join-name"
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=lobby]")
    assert "Omid" in page.locator("[data-testid=lobby]").inner_text()


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_the_seat_request_form_keeps_a_name_typed_through_a_language_switch(
    new_page: Any, server: str, lang: str
) -> None:
    """A spectator's form asking for a bot's seat sits on the live table, which is drawn at every move."""
    code = httpx.post(f"{server}/api/rooms", json={"name": "Sara", "seats": 3, "bots": 2}).json()["code"]
    page = new_page(390, 844, lang)
    page.goto(f"{server}/r/{code}")
    page.click("[data-testid=watch]")
    page.click("[data-testid=ask-seat-1]")
    page.locator("[data-testid=ask-name]").type("Nim")
    switch_language_from_elsewhere(page, lang, "ask-send")
    page.keyboard.type("a")
    assert page.input_value("[data-testid=ask-name]") == "Nima"
    assert page.evaluate(FOCUSED) == "ask-name"
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=request-1]")
    assert page.locator("[data-testid=ask-form]").count() == 0
