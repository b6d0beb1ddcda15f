"""A person who drops during a game, told on every screen in Chromium: "… is offline — the table plays for
them in 45 s", counting down to the end of their grace period (the server's ``auto_at``), gone when they
come back."""

from __future__ import annotations

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tests.api.wsclient import Client, create_room, join_room

from .conftest import screenshot
from .test_host import open_as

pytestmark = pytest.mark.e2e

SAYS = {
    "en": re.compile(r"^Omid is offline — the table plays for them in (\d+) s$"),
    "fa": re.compile(r"^Omid آفلاین است — میز تا ([۰-۹]+) ثانیه دیگر به جای او بازی می‌کند$"),
}
LATIN = str.maketrans("۰۱۲۳۴۵۶۷۸۹", "0123456789")


async def start_for_two(server: str) -> tuple[str, dict[int, str]]:
    """Sara (host) and Omid at a table of two, the game started (from Python, over the WebSocket)."""
    created = await create_room(server, "Sara", seats=2)
    code = created["code"]
    tokens = {0: created["token"], 1: (await join_room(server, code, "Omid"))["token"]}
    client = await Client.connect(server, code)
    await client.hello(tokens[0])
    await client.send({"type": "start"})
    await client.until(lambda m: m["type"] == "state" and m["game"] is not None)
    await client.close()
    return code, tokens


def started_for_two(server: str) -> tuple[str, dict[int, str]]:
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, start_for_two(server)).result(timeout=60)


def seconds_said(page: Any, lang: str) -> int:
    text = page.locator("[data-testid=away-1]").inner_text().replace("\u2068", "").replace("\u2069", "")
    found = SAYS[lang].match(text)
    assert found, text
    return int(found.group(1).translate(LATIN))


@pytest.mark.parametrize(("lang", "width", "height"), [("en", 1280, 800), ("fa", 390, 844)])
def test_a_player_who_drops_is_said_to_be_offline_with_a_countdown(
    new_page: Any, server: str, lang: str, width: int, height: int
) -> None:
    code, tokens = started_for_two(server)
    sara = new_page(width, height, lang=lang)
    sara.goto(f"{server}/")
    sara.evaluate("([code, token]) => localStorage.setItem(`tt.token.${code}`, token)", [code, tokens[0]])
    sara.goto(f"{server}/r/{code}")
    omid = open_as(new_page, server, code, tokens[1], lang=lang)
    for page in (sara, omid):
        page.wait_for_selector("[data-testid=table]")
    sara.wait_for_selector("[data-testid=player-1] .presence.online")
    assert sara.locator("[data-testid=away]").count() == 0
    omid.close()  # Omid's tab is gone

    line = sara.locator("[data-testid=away-1]")
    line.wait_for()
    first = seconds_said(sara, lang)
    assert 50 <= first <= 60, first  # the grace period is 60 s
    sara.wait_for_timeout(2200)
    later = seconds_said(sara, lang)
    assert first - 3 <= later < first, (first, later)  # it counts down
    line.scroll_into_view_if_needed()
    screenshot(sara, f"away-countdown-{lang}.png")

    # Back: the line goes.
    omid = open_as(new_page, server, code, tokens[1], lang=lang)
    omid.wait_for_selector("[data-testid=table]")
    line.wait_for(state="detached")
