"""The home page's "Your tables" in the browser (issue 35): after joining two paced tables in one browser, the
home page lists both, your turn first and in gold, whose turn it is at the other, the hours left and the
unread chat; one tap opens the table; a table read there counts no unread line when the page is shown again.
English and Persian, a 360 px phone and a laptop."""

from __future__ import annotations

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tests.api.test_history import quick_move
from tests.api.wsclient import Client, create_room

from .conftest import screenshot
from .test_a11y import assert_accessible

TEXTS = {
    "en": {
        "mine": "Your turn",
        "theirs": "Nima’s turn",
        "left_a": r"^23 h left$",
        "left_b": r"^7 h left$",
        "unread": "💬 1",
        "title": "Your tables",
        "meta": "Round 1 · 24 h a turn",
    },
    "fa": {
        "mine": "نوبت شما",
        "theirs": "نوبت Nima",
        "left_a": r"^۲۳ ساعت مانده$",
        "left_b": r"^۷ ساعت مانده$",
        "unread": "💬 ۱",
        "title": "میزهای شما",
        "meta": "دور ۱، ۲۴ ساعت برای هر نوبت",  # no middle dot: between digits it reads as a zero
    },
}


def bare(text: str) -> str:
    """Text without the isolates around a name in a sentence (FSI, PDI)."""
    return text.replace("\u2068", "").replace("\u2069", "")


def run(coroutine: Any) -> Any:
    """A coroutine in a thread of its own: Playwright's sync API holds this thread's event loop."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result(timeout=120)


async def play_to_turn(server: str, code: str, tokens: list[str], seat: int, chat: str | None = None) -> None:
    """Start the table (its host's token first) and play its seats (each token's) until it is ``seat``'s
    turn to draw; then the host says ``chat``."""
    clients = [await Client.connect(server, code) for _ in tokens]
    for client, token in zip(clients, tokens, strict=True):
        await client.hello(token)
    host = clients[0]
    await host.send({"type": "start"})
    await host.until(lambda m: m["type"] == "state" and m["game"] is not None)
    for _ in range(40):
        states = [c.state["game"] for c in clients if c.state and c.state["game"]]
        if len(states) < len(clients):
            await asyncio.sleep(0.05)
            continue
        mover = next((c for c in clients if c.state and c.state["game"]["seat"] == states[0]["turn"]), None)
        if states[0]["turn"] == seat and states[0]["phase"] == "draw":
            break
        assert mover is not None and mover.state is not None
        view = mover.state["game"]
        answer = await mover.act(quick_move(view), version=mover.state["version"])
        assert answer["type"] == "ack", answer
        for client in clients:
            await client.wait_version(answer["version"])
    else:
        raise AssertionError("the turn never came to the seat")
    if chat:
        await host.send({"type": "chat", "text": chat})
        await host.next("chat")
    for client in clients:
        await client.close()


async def say(server: str, code: str, token: str, text: str) -> None:
    client = await Client.connect(server, code)
    await client.hello(token)
    await client.send({"type": "chat", "text": text})
    await client.next("chat")
    await client.close()


def join(page: Any, server: str, code: str) -> None:
    page.goto(f"{server}/r/{code}")
    page.fill("[data-testid=join-name]", "Omid")
    page.click("[data-testid=join-seat]")
    page.wait_for_selector("[data-testid=lobby]")


@pytest.mark.parametrize(
    ("lang", "width", "height"), [("en", 360, 780), ("fa", 360, 780), ("en", 1280, 800), ("fa", 1280, 800)]
)
def test_the_home_page_lists_the_tables_of_this_browser(
    new_page: Any, server: str, lang: str, width: int, height: int
) -> None:
    says = TEXTS[lang]
    sara = run(create_room(server, "Sara", seats=2, options={"pace": 24}))
    nima = run(create_room(server, "Nima", seats=2, options={"pace": 8}))
    page = new_page(width, height, lang=lang, has_touch=width < 600)
    page.goto(f"{server}/")
    page.wait_for_selector("[data-testid=create]")
    assert page.locator("[data-testid=my-tables]").count() == 0, "a browser with no table shows no list"
    for room in (sara, nima):
        join(page, server, room["code"])
    tokens = page.evaluate(
        """() => Object.fromEntries(Object.keys(localStorage).filter((k) => k.startsWith('tt.token.'))
             .map((k) => [k.slice(9), localStorage.getItem(k)]))"""
    )
    assert set(tokens) == {sara["code"], nima["code"]}
    page.goto(f"{server}/standings")  # Omid is away while the others play
    run(play_to_turn(server, sara["code"], [sara["token"], tokens[sara["code"]]], seat=1, chat="salam"))
    run(play_to_turn(server, nima["code"], [nima["token"], tokens[nima["code"]]], seat=0))

    page.goto(f"{server}/")
    mine = page.locator(f"[data-testid=my-table-{sara['code']}]")
    theirs = page.locator(f"[data-testid=my-table-{nima['code']}]")
    mine.wait_for()
    theirs.wait_for()
    assert page.locator("#my-tables-title").inner_text() == says["title"]
    rows = page.locator(".mt-list .mt-table").evaluate_all("els => els.map((e) => e.dataset.testid)")
    assert rows == [f"my-table-{sara['code']}", f"my-table-{nima['code']}"], "your turn comes first"
    assert "mine" in (mine.get_attribute("class") or "")
    assert mine.locator("[data-testid=mt-state]").inner_text() == says["mine"]
    assert re.match(says["left_a"], mine.locator("[data-testid=mt-left]").inner_text())
    assert mine.locator("[data-testid=mt-unread]").inner_text() == says["unread"]
    assert mine.locator(".mt-meta").inner_text() == says["meta"]
    assert "mine" not in (theirs.get_attribute("class") or "")
    assert bare(theirs.locator("[data-testid=mt-state]").inner_text()) == says["theirs"]
    assert re.match(says["left_b"], theirs.locator("[data-testid=mt-left]").inner_text())
    assert theirs.locator("[data-testid=mt-unread]").count() == 0
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, f"the page is {overflow} px wider than the screen"
    page.locator("[data-testid=my-tables]").scroll_into_view_if_needed()
    screenshot(page, f"my-tables-{lang}-{width}.png")
    assert_accessible(page, "your tables")

    if width < 600:
        mine.tap()
    else:
        mine.click()
    page.wait_for_selector("[data-testid=table][data-my-turn='1']")
    assert page.url.rstrip("/").endswith(f"/r/{sara['code']}")
    if width >= 900:  # the chat is open beside a laptop's table: its line is read
        page.wait_for_selector("[data-testid=chat-log] >> text=salam")
        page.go_back()
        mine.wait_for()
        page.wait_for_function(
            "(code) => !document.querySelector(`[data-testid=my-table-${code}] [data-testid=mt-unread]`)",
            arg=sara["code"],
        )
        # Sara says more while the page is in the background; shown again, the page asks again.
        run(say(server, sara["code"], sara["token"], "khubi?"))
        page.wait_for_timeout(2100)  # a page shown again asks at most every 2 s
        page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
        mine.locator("[data-testid=mt-unread]").wait_for()
        assert mine.locator("[data-testid=mt-unread]").inner_text() == says["unread"]
