"""The host's controls and the rematch in Chromium: Play again on the table once the game-over dialog is
closed, the host role handed over by choice, a player on the history page told that a new game started,
Remove asked in the page, and the labelled control that lets a bot play a person's seat."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from tests.api.test_history import quick_move
from tests.api.wsclient import Client, create_room, join_room

from .conftest import open_lobby, screenshot
from .test_client import table_attr

pytestmark = pytest.mark.e2e

TEXT = {
    "en": {
        "bot": "Let a bot play",
        "bot_named": "Let a bot play for Omid",
        "remove": "Remove Nima from the table?",
    },
    "fa": {"bot": "سپردن به رایانه", "bot_named": "Omid: سپردن به رایانه", "remove": "Nima از میز حذف شود؟"},
}


async def play_two_to_the_end(server: str) -> tuple[str, dict[int, str]]:
    """Sara (host) and Omid, both played over WebSockets from Python, to the game's end (the worker's server
    lifts the per-socket message rate for this)."""
    created = await create_room(server, "Sara", seats=2)
    code = created["code"]
    tokens = {0: created["token"], 1: (await join_room(server, code, "Omid"))["token"]}
    clients = {seat: await Client.connect(server, code) for seat in tokens}
    for seat, client in clients.items():
        await client.hello(tokens[seat])
    await clients[0].send({"type": "start"})
    while True:
        views = {seat: c.state["game"] if c.state else None for seat, c in clients.items()}
        if any(v is not None and v["phase"] == "game_over" for v in views.values()):
            break
        moved = False
        for seat, view in views.items():
            if view is not None and view["turn"] == seat and view["legal"]:
                client = clients[seat]
                answer = await client.act(quick_move(view), version=client.state["version"])  # type: ignore[index]
                if answer["type"] == "ack":
                    for other in clients.values():
                        await other.wait_version(answer["version"])
                moved = True
        if not moved:
            await asyncio.sleep(0.02)
    for client in clients.values():
        await client.close()
    return code, tokens


def finished_for_two(server: str) -> tuple[str, dict[int, str]]:
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, play_two_to_the_end(server)).result(timeout=240)


def open_as(new_page: Any, server: str, code: str, token: str, lang: str = "en") -> Any:
    """A phone-sized page holding ``token`` for the table (as after joining), on the table."""
    page = new_page(390, 844, lang=lang)
    page.on("dialog", lambda d: pytest.fail(f"the browser's own {d.type} box was used: {d.message}"))
    page.goto(f"{server}/")
    page.evaluate("([code, token]) => localStorage.setItem(`tt.token.${code}`, token)", [code, token])
    page.goto(f"{server}/r/{code}")
    return page


def test_play_again_after_the_dialog_handover_and_news_of_the_new_game(new_page: Any, server: str) -> None:
    code, tokens = finished_for_two(server)
    sara = open_as(new_page, server, code, tokens[0])
    omid = open_as(new_page, server, code, tokens[1])
    for page in (sara, omid):
        page.wait_for_selector("[data-testid=winner]")
        page.click("[data-testid=continue]")  # closes the game-over dialog
        page.wait_for_selector(".dialog", state="detached")
        page.locator("[data-testid=game-over-panel]").wait_for()
        assert page.locator("[data-testid=table-history]").is_visible()
    # The table still offers what comes next: the host's Play again, the others' wait.
    assert sara.locator("[data-testid=play-again]").is_visible()
    assert sara.locator("[data-testid=waiting-rematch]").count() == 0
    assert omid.locator("[data-testid=waiting-rematch]").is_visible()
    assert omid.locator("[data-testid=play-again]").count() == 0
    assert omid.locator("[data-testid=host-controls]").count() == 0
    screenshot(sara, "host-game-over-table.png")

    # Sara hands the host role to Omid: asked in the page first; Cancel changes nothing.
    sara.click("[data-testid=host-controls] summary")
    make = sara.locator("[data-testid=make-host-1]")
    assert make.inner_text() == "Make host" and make.get_attribute("aria-label") == "Make host: Omid"
    make.click()
    question = sara.get_by_role("alertdialog")
    assert "Make Omid the host?" in question.inner_text()
    sara.click("[data-testid=confirm-host-cancel]")
    question.wait_for(state="detached")
    sara.wait_for_timeout(300)
    assert sara.locator("[data-testid=play-again]").is_visible()
    make.click()
    sara.click("[data-testid=confirm-host-yes]")
    sara.locator("[data-testid=waiting-rematch]").wait_for()
    assert sara.locator("[data-testid=play-again]").count() == 0
    assert sara.locator("[data-testid=host-controls]").count() == 0
    omid.locator("[data-testid=play-again]").wait_for()
    assert "You are now the host." in omid.locator("#toast").inner_text()
    assert omid.locator("[data-testid=host-controls]").count() == 1

    # Sara looks at the history; Omid starts the next game; Sara is told, and goes back.
    sara.click("[data-testid=table-history]")
    sara.wait_for_url(f"**/r/{code}/history")
    sara.locator("[data-testid=history]").wait_for()
    omid.click("[data-testid=play-again]")
    omid.wait_for_selector("[data-testid=table][data-round='1']")
    banner = sara.locator("[data-testid=new-game-banner]")
    banner.wait_for(timeout=15_000)
    assert "A new game has started at your table." in banner.inner_text()
    screenshot(sara, "host-new-game-banner.png")
    sara.click("[data-testid=new-game-back]")
    sara.wait_for_url(f"**/r/{code}")
    sara.wait_for_selector("[data-testid=table][data-round='1']")
    assert table_attr(sara, "phase") in ("draw", "discard")
    assert sara.locator("[data-testid=new-game-banner]").count() == 0


def test_back_to_the_lobby_after_a_game_to_change_the_rules_with_a_ready_check(
    new_page: Any, server: str
) -> None:
    """The host takes the finished table back to the lobby, turns jokers on and raises the seat count; Omid
    (reading Persian) says he is in; Sara sees it and starts the second game with the new rules."""
    code, tokens = finished_for_two(server)
    sara = open_as(new_page, server, code, tokens[0])
    omid = open_as(new_page, server, code, tokens[1], lang="fa")
    for page in (sara, omid):
        page.wait_for_selector("[data-testid=winner]")
        page.click("[data-testid=continue]")  # closes the game-over dialog
        page.locator("[data-testid=game-over-panel]").wait_for()
    assert omid.locator("[data-testid=reopen]").count() == 0  # the host's choice only
    assert sara.locator("[data-testid=reopen]").inner_text() == "Change seats or rules"
    sara.click("[data-testid=reopen]")
    for page in (sara, omid):
        page.locator("[data-testid=lobby]").wait_for()
    assert sara.locator("[data-testid=start]").is_enabled()
    assert (
        sara.locator("[data-testid=ready-count]").inner_text() == "Players ready: 0 of 1"
    )  # the host is not counted

    # The host changes the rules; the guest reads them, locked, and says he is in.
    sara.check("#opt-jokers")
    omid.locator("#opt-joker_points").wait_for(state="attached")  # the joker rows appear (folded for him)
    assert omid.locator("#opt-jokers").is_disabled() and omid.locator("#opt-jokers").is_checked()
    ready = omid.locator("[data-testid=ready]")
    assert ready.inner_text() == "من هستم"
    omid.evaluate("window.scrollTo(0, 0)")
    screenshot(omid, "lobby-ready-check-fa.png")
    ready.click()
    omid.locator("[data-testid=you-are-ready]").wait_for()
    assert omid.locator("[data-testid=ready]").count() == 0
    sara.locator("[data-testid=ready-1]").wait_for()
    assert sara.locator("[data-testid=ready-1]").get_attribute("aria-label") == "Omid is ready"
    assert sara.locator("[data-testid=ready-count]").inner_text() == "Players ready: 1 of 1"
    sara.evaluate("window.scrollTo(0, 0)")
    screenshot(sara, "lobby-ready-check.png")

    sara.click("[data-testid=start]")
    for page in (sara, omid):
        page.wait_for_selector("[data-testid=table][data-round='1']")
    with httpx.Client(base_url=server) as http:
        room = http.get(f"/api/rooms/{code}").json()
    assert room["options"]["jokers"] is True and room["game"]["number"] == 2


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_remove_asks_first_and_the_bot_control_has_words(new_page: Any, server: str, lang: str) -> None:
    page = new_page(390, 844, lang=lang)
    page.on("dialog", lambda d: pytest.fail(f"the browser's own {d.type} box was used: {d.message}"))
    code = open_lobby(page, server, seats=3)
    with httpx.Client(base_url=server) as http:
        for name in ("Omid", "Nima"):
            assert http.post(f"/api/rooms/{code}/join", json={"name": name}).status_code == 200
    page.locator("[data-testid=seat-2]").wait_for()

    # Remove asks in the page; Escape and Cancel keep the seat, the danger button removes it.
    page.click("[data-testid=remove-2]")
    question = page.get_by_role("alertdialog")
    assert TEXT[lang]["remove"] in question.inner_text()
    assert page.evaluate("document.activeElement.dataset.testid") == "confirm-remove-cancel"
    screenshot(page, f"host-remove-confirm-{lang}.png")
    page.keyboard.press("Escape")
    question.wait_for(state="detached")
    page.wait_for_timeout(300)
    assert page.locator("[data-testid=seat-2]").count() == 1
    page.click("[data-testid=remove-2]")
    page.click("[data-testid=confirm-remove-yes]")
    page.locator("[data-testid=seat-2]").wait_for(state="detached")
    assert page.locator("[data-testid=seat-1]").count() == 1

    # At the table the host lets a bot play Omid's seat with a control that says so.
    page.click("[data-testid=start]")
    page.wait_for_selector("[data-testid=table]")
    assert page.locator("[data-testid=player-1] button").count() == 0  # no unlabelled pill by the name
    page.click("[data-testid=host-controls] summary")
    control = page.locator("[data-testid=bot-seat-1]")
    assert control.inner_text().strip() == TEXT[lang]["bot"]
    assert control.get_attribute("aria-label") == TEXT[lang]["bot_named"]
    control.click()
    page.get_by_role("alertdialog").wait_for()
    screenshot(page, f"host-bot-confirm-{lang}.png")
    page.click("[data-testid=confirm-bot-yes]")
    page.locator("[data-testid=player-1] .bot-icon").wait_for()
    assert page.locator("[data-testid=host-controls]").count() == 0  # nobody else to manage
