"""The history page and the replay viewer in Chromium: a finished game (its person plays over the WebSocket
from Python against a bot), found from the game's end, listed with the leaderboard, then replayed step by step
with every hand open, by buttons, keys, round jumps and play/pause."""

from __future__ import annotations

import json
import re
import urllib.request
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest

from .conftest import open_lobby, screenshot
from .seeding import finish_with_a_bot

pytestmark = pytest.mark.e2e

HANDS = "els => els.map(e => e.dataset.cards)"


def replay_attr(page: Any, name: str) -> str | None:
    return page.locator("[data-testid=replay]").get_attribute(f"data-{name}")


def hands(page: Any) -> list[str]:
    return page.locator("[data-testid^=replay-hand-]").evaluate_all(HANDS)


def wait_index(page: Any, index: int) -> None:
    page.wait_for_selector(f"[data-testid=replay][data-index='{index}']")


def test_history_and_replay_of_a_finished_game(
    new_page: Any, server: str, finished_game: tuple[str, int]
) -> None:
    code, game_id = finished_game
    page = new_page(1280, 900)
    # Watching the table at its end: the game-over dialog links to the history.
    page.goto(f"{server}/r/{code}")
    page.click("[data-testid=watch]")
    page.wait_for_selector("[data-testid=winner]")
    page.click("[data-testid=history-link]")
    page.wait_for_url(f"**/r/{code}/history")

    row = page.locator(f"[data-testid=game-{game_id}]")
    row.wait_for()
    assert "Sara" in row.inner_text() and "Finished" in row.inner_text()
    assert row.locator(".won").count() >= 1
    # The table's standings count people only (never the bot); a name there opens its standings. Its
    # average is Sara's one total.
    board = page.locator("[data-testid=leaderboard] tbody tr")
    assert board.count() == 1
    assert board.locator(".player-link").inner_text() == "Sara"
    assert board.locator(".player-link").get_attribute("href") == "/standings/Sara"
    game = httpx.get(f"{server}/api/rooms/{code}/games", timeout=30).json()["items"][0]
    sara = next(p["seat"] for p in game["players"] if p["name"] == "Sara")
    assert board.locator("td").last.inner_text() == str(game["totals"][sara])
    assert page.locator("[data-testid=games-pager]").count() == 0, "one game: a single page"
    screenshot(page, "history.png", full_page=True)

    row.locator(f"[data-testid=replay-{game_id}]").click()
    page.wait_for_url(f"**/r/{code}/replay/{game_id}")
    page.wait_for_selector("[data-testid=replay][data-index='0']")
    assert replay_attr(page, "kind") == "deal" and replay_attr(page, "round") == "1"
    first = hands(page)
    assert len(first) == 2 and all(len(h.split()) == 3 for h in first), "round 1 deals 3 open cards to each"
    assert "deals 3 cards" in page.inner_text("[data-testid=replay-action]")

    # Step through several turns with the buttons and the arrow keys: the open hands change.
    seen = {tuple(first)}
    actions_seen = set()
    for step in range(1, 7):
        if step % 2:
            page.click("[data-testid=replay-next]")
        else:
            page.locator("body").press("ArrowRight")
        wait_index(page, step)
        seen.add(tuple(hands(page)))
        actions_seen.add(page.inner_text("[data-testid=replay-action]"))
    assert len(seen) >= 4, "drawing and discarding change the hands shown"
    assert any(re.search(r"drew \S+ from the stock|took \S+ from the discard", a) for a in actions_seen)
    assert any(" threw " in a or "went out" in a for a in actions_seen)
    page.locator("body").press("ArrowLeft")
    wait_index(page, 5)

    # Jump to round 5 (its deal: 7 cards each, wild 7s), then to the next round, then back.
    page.click("[data-testid=round-jump-5]")
    page.wait_for_selector("[data-testid=replay][data-round='5'][data-kind='deal']")
    assert all(len(h.split()) == 7 for h in hands(page))
    assert page.locator("[data-testid=round-jump-5]").get_attribute("aria-current") == "true"
    assert page.locator("[data-testid=replay-scores] tbody tr").count() == 4, (
        "the sheet holds the ended rounds"
    )
    page.click("[data-testid=replay-next-round]")
    page.wait_for_selector("[data-testid=replay][data-round='6'][data-kind='deal']")
    page.locator("body").press("PageUp")
    page.wait_for_selector("[data-testid=replay][data-round='5'][data-kind='deal']")

    # Play runs on by itself; pause stops it.
    at = int(replay_attr(page, "index") or 0)
    page.click("[data-testid=replay-play]")
    page.wait_for_function(
        "i => Number(document.querySelector('[data-testid=replay]').dataset.index) >= i + 2", arg=at
    )
    page.click("[data-testid=replay-play]")
    page.wait_for_selector("[data-testid=replay][data-playing='0']")
    paused = replay_attr(page, "index")
    page.wait_for_timeout(1200)
    assert replay_attr(page, "index") == paused

    # A moment mid-round for the screenshot: a few moves into round 7. Three steps are always moves of the
    # round: the shortest round is a draw, a go-out, the other seat's draw, and its discard (the round's end
    # frame); five steps could reach the next round's deal, as the game it played happened to.
    page.click("[data-testid=round-jump-7]")
    page.wait_for_selector("[data-testid=replay][data-round='7'][data-kind='deal']")
    for _ in range(3):
        page.click("[data-testid=replay-next]")
    page.wait_for_selector("[data-testid=replay][data-round='7'][data-kind='move']")
    page.mouse.move(0, 0)
    screenshot(page, "replay.png", full_page=True)

    # The end: the winner, the whole score sheet.
    page.locator("body").press("End")
    page.wait_for_selector("[data-testid=replay][data-phase='game_over']")
    assert "Game over" in page.inner_text("[data-testid=replay-banner]")
    assert page.locator("[data-testid=replay-scores] tbody tr").count() == 11
    assert page.locator("[data-testid=replay-next]").is_disabled()

    page.click("[data-testid=back-to-history]")
    page.wait_for_selector(f"[data-testid=game-{game_id}]")


def test_the_replay_in_persian_is_right_to_left(
    new_page: Any, server: str, finished_game: tuple[str, int]
) -> None:
    code, game_id = finished_game
    page = new_page(1024, 900, lang="fa")
    page.goto(f"{server}/r/{code}/replay/{game_id}")
    page.wait_for_selector("[data-testid=replay][data-index='0']")
    assert page.evaluate("document.documentElement.dir") == "rtl"
    assert "بازپخش" in page.inner_text("h1")
    page.locator("body").press("ArrowLeft")  # forward, in a right-to-left page
    wait_index(page, 1)
    # No "·" between words and numbers anywhere: in Persian it reads as a zero ("۲۷ · " looks like ۲۷۰).
    assert "·" not in page.inner_text("[data-testid=replay]")
    page.locator("body").press("ArrowRight")
    wait_index(page, 0)
    page.click("[data-testid=round-jump-3]")
    page.wait_for_selector("[data-testid=replay][data-round='3']")
    for _ in range(3):
        page.click("[data-testid=replay-next]")
    # Cards run right to left, as in the live hand: a group's first card is its rightmost.
    group = page.locator("[data-testid^=replay-hand-] .group").first
    xs = group.locator(".card").evaluate_all("els => els.map(e => e.getBoundingClientRect().left)")
    assert len(xs) >= 2 and xs[0] > xs[-1], xs
    page.mouse.move(0, 0)
    screenshot(page, "replay-fa.png", full_page=True)


def test_unknown_and_unfinished_games_say_so(new_page: Any, server: str) -> None:
    code, game_id = finish_with_a_bot(server, "Omid", finish=False)
    page = new_page(800, 700)
    page.goto(f"{server}/r/{code}/replay/{game_id}")
    assert "still being played" in page.locator("[data-testid=replay] .error").inner_text()
    page.goto(f"{server}/r/{code}/history")
    row = page.locator(f"[data-testid=game-{game_id}]")
    assert "In play" in row.inner_text()
    assert row.locator(f"[data-testid=replay-{game_id}]").count() == 0
    assert page.locator("[data-testid=no-leaders]").count() == 1
    page.goto(f"{server}/r/{code}/replay/999999")
    assert "No such game" in page.locator("[data-testid=replay] .error").inner_text()


def test_the_lobby_links_to_the_history_of_its_table(new_page: Any, server: str) -> None:
    page = new_page(800, 700)
    code = open_lobby(page, server, "Lale")
    page.click("[data-testid=history-link]")
    page.wait_for_url(f"**/r/{code}/history")
    page.wait_for_selector("[data-testid=no-games]")
    page.click("[data-testid=back-to-table]")
    page.wait_for_selector("[data-testid=lobby]")


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_history_and_replay_show_the_time_where_the_browser_is(
    new_page: Any, server: str, finished_game: tuple[str, int], lang: str
) -> None:
    """A browser in Tehran (UTC+03:30) shows when the game ended in Tehran's time, not UTC's."""
    code, game_id = finished_game
    with urllib.request.urlopen(f"{server}/api/games/{game_id}") as response:
        ended = datetime.fromisoformat(json.load(response)["finished_at"])
    local = ended.astimezone(ZoneInfo("Asia/Tehran"))
    expected = re.compile(rf"(?<!\d)0?{local.hour}:{local.minute:02d}(?!\d)")
    latin = str.maketrans("۰۱۲۳۴۵۶۷۸۹", "0123456789")
    page = new_page(390, 844, lang=lang, timezone_id="Asia/Tehran")
    page.goto(f"{server}/r/{code}/history")
    shown = page.locator(f"[data-testid=game-{game_id}] time.game-date").inner_text()
    assert expected.search(shown.translate(latin)), (expected.pattern, shown)
    screenshot(page, f"history-tehran-{lang}.png", full_page=True)
    page.goto(f"{server}/r/{code}/replay/{game_id}")
    page.wait_for_selector("[data-testid=replay][data-index='0']")
    shown = page.locator("[data-testid=replay-date]").inner_text()
    assert expected.search(shown.translate(latin)), (expected.pattern, shown)
    screenshot(page, f"replay-tehran-{lang}.png")
