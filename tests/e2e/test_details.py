"""Small things a person sees, in Chromium: the reconnecting badge on a Persian phone, numbers and bot names
in the history, "1 pt", the replay's hands and its key help on a touch phone, a lifted hint card under its
group's label."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from .conftest import screenshot
from .test_client import table_attr
from .test_replay import hands
from .test_table import start_against_a_bot

pytestmark = pytest.mark.e2e

I18N = """async ([lang, calls]) => {
  const m = await import('/static/js/i18n.js');
  m.setLang(lang);
  return calls.map(([f, ...a]) => m[f](...a));
}"""


def test_the_persian_reconnecting_badge_stays_on_one_line_on_a_phone(new_page: Any, server: str) -> None:
    page = new_page(390, 844, lang="fa")
    start_against_a_bot(page, server)
    page.context.set_offline(True)
    badge = page.locator("[data-testid=conn]")
    badge.wait_for()
    page.wait_for_function(
        "() => document.querySelector('[data-testid=conn]').textContent.includes('اتصال دوباره')"
    )
    lines = badge.evaluate("el => el.getClientRects().length")
    box = badge.bounding_box()
    assert box is not None and lines == 1 and box["height"] < 30, (lines, box)
    top = page.evaluate(
        "(() => { const t = document.querySelector('.topbar'); return [t.scrollWidth, t.clientWidth]; })()"
    )
    assert top[0] <= top[1], f"the header overflows the phone: {top}"
    screenshot(page, "reconnecting-fa-phone.png")
    page.context.set_offline(False)
    badge.wait_for(state="detached")


def test_numbers_read_as_their_language_writes_them(new_page: Any, server: str) -> None:
    page = new_page(390, 844)
    page.goto(f"{server}/")
    page.wait_for_selector("[data-testid=create]")
    calls = [["t", "points", {"n": 1}], ["t", "points", {"n": 2}], ["num", 63.5], ["num", "10"]]
    assert page.evaluate(I18N, ["en", calls]) == ["1 pt", "2 pts", "63.5", "10"]
    assert page.evaluate(I18N, ["fa", calls]) == ["۱ امتیاز", "۲ امتیاز", "۶۳٫۵", "۱۰"]


def test_the_persian_history_names_the_bot_as_the_table_does(
    new_page: Any,
    server: str,
    finished_game: tuple[str, int],
) -> None:
    code, game_id = finished_game
    page = new_page(390, 844, lang="fa")
    page.goto(f"{server}/r/{code}/history")
    row = page.locator(f"[data-testid=game-{game_id}]")
    row.wait_for()
    assert "رایانه ۲" in row.inner_text() and "Bot 2" not in row.inner_text()
    board = page.locator("[data-testid=leaderboard]").inner_text()
    assert "Bot 2" not in board and "رایانه ۲" not in board, "a bot is never in the table's standings"
    screenshot(page, "history-fa-bot-name.png", full_page=True)


def overlapping(page: Any) -> list[str]:
    """Hands of the replay whose neighbouring cards overlap (left to right in English)."""
    return page.evaluate(
        """() => [...document.querySelectorAll('[data-testid^=replay-hand-] .cards')].flatMap((g) => {
          const cards = [...g.querySelectorAll('.card')].map((c) => c.getBoundingClientRect());
          const overlap = cards.slice(1).some((c, i) => c.left < cards[i].right - 1);
          return overlap ? [g.closest('li').dataset.testid] : [];
        })"""
    )


def test_replay_hands_spread_out_when_there_is_room(
    new_page: Any,
    server: str,
    finished_game: tuple[str, int],
) -> None:
    code, game_id = finished_game
    page = new_page(1280, 900)
    page.goto(f"{server}/r/{code}/replay/{game_id}")
    page.wait_for_selector("[data-testid=replay][data-index='0']")
    assert len(hands(page)) == 2
    assert overlapping(page) == [], "three cards each, on a wide screen: side by side"
    page.click("[data-testid=round-jump-6]")
    page.wait_for_selector("[data-testid=replay][data-round='6'][data-kind='deal']")
    assert overlapping(page) == [], "eight cards still fit a laptop's width"
    page.mouse.move(0, 0)
    assert page.locator(".rp-keys").is_visible(), "a laptop's keys are told"
    screenshot(page, "replay-spread-en.png")
    phone = new_page(390, 844, lang="fa", is_mobile=True, has_touch=True)
    phone.goto(f"{server}/r/{code}/replay/{game_id}")
    phone.wait_for_selector("[data-testid=replay][data-index='0']")
    assert phone.locator(".rp-keys").count() == 0, "no keyboard keys to mention on a touch phone"
    phone.click("[data-testid=round-jump-11]")
    phone.wait_for_selector("[data-testid=replay][data-round='11'][data-kind='deal']")
    width = phone.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"the replay overflows the phone: {width}"
    screenshot(phone, "replay-phone-fa.png", full_page=True)


def test_a_lifted_hint_card_stays_below_its_groups_label(new_page: Any, server: str) -> None:
    for lang in ("en", "fa"):
        page = new_page(390, 844, lang=lang)
        page.goto(f"{server}/")
        page.fill("[data-testid=create-name]", "Sara")
        page.click("[data-testid=add-bot]")
        page.click("[data-testid=create]")
        page.wait_for_selector("[data-testid=lobby]")
        page.check("#opt-hints")
        page.wait_for_function("() => document.querySelector('#opt-hints')?.checked")
        page.wait_for_timeout(300)
        page.click("[data-testid=start]")
        page.wait_for_selector("[data-testid=table][data-my-turn='1'][data-phase='draw']")
        page.click("[data-testid=stock]")
        page.wait_for_selector("[data-testid=table][data-phase='discard']")
        assert table_attr(page, "phase") == "discard"
        page.click("[data-testid=hint]")
        hinted = page.locator(".hand .card.hinted")
        hinted.wait_for()
        page.mouse.move(0, 0)
        page.wait_for_timeout(300)  # the lift's transition
        gap = hinted.evaluate(
            """(card) => {
              const label = card.closest('.group').querySelector('.group-label').getBoundingClientRect();
              return card.getBoundingClientRect().top - 3 - label.bottom;  // 3 px: the hint's ring
            }"""
        )
        assert gap >= 0, f"the lifted card covers its group's label by {-gap} px ({lang})"
        screenshot(page, f"hint-lifted-{lang}.png")


def pass_through(ws: Any) -> Any:
    """A routed page socket joined to the real server, every message passed both ways; returns it."""
    upstream = ws.connect_to_server()
    ws.on_message(upstream.send)
    upstream.on_message(ws.send)
    return ws


def test_a_close_the_server_never_sends_is_only_a_drop(new_page: Any, server: str) -> None:
    """Only 4404 (no such room) ends the client's attempts; any other close, e.g. 4403 (which the server
    never sends), is a dropped connection: it reconnects and plays on."""
    page = new_page(390, 844)
    sockets: list[Any] = []

    page.route_web_socket(re.compile(r"/ws/"), lambda ws: sockets.append(pass_through(ws)))
    start_against_a_bot(page, server)
    assert len(sockets) == 1
    sockets[0].close(code=4403, reason="forbidden")
    page.wait_for_timeout(3000)  # the first retry comes within a second
    assert len(sockets) == 2, "the page connected again"
    assert page.locator("[data-testid=table]").is_visible()
    page.locator("[data-testid=conn]").wait_for(state="detached")
    assert "No table with that code" not in page.inner_text("#main")


def test_after_a_restart_announcement_the_page_tries_again_every_second_not_backing_off(
    new_page: Any, server: str
) -> None:
    """A restarting server says so (`restarting`) and is back within seconds, with every page of every
    table coming back at once: the page then tries every 0.5-1 s instead of backing off (300 ms, 1 s, 2 s,
    4 s, 8 s: five refused tries would have cost it 15 s), and plays on once the server answers."""
    page = new_page(390, 844)
    opened: list[float] = []
    sockets: list[Any] = []

    def route(ws: Any) -> None:
        opened.append(time.monotonic())
        if 1 < len(opened) <= 6:  # the new process is not up yet: five tries are turned away
            ws.close(code=1011, reason="not yet")
            return
        sockets.append(pass_through(ws))

    page.route_web_socket(re.compile(r"/ws/"), route)
    start_against_a_bot(page, server)
    assert len(opened) == 1
    sockets[0].send('{"type":"restarting"}')
    sockets[0].close(code=1012, reason="restarting")
    announced = time.monotonic()
    page.wait_for_function("() => !document.querySelector('[data-testid=conn]')", timeout=12_000)
    assert len(opened) == 7, opened
    assert opened[-1] - announced < 7.5, (
        f"the page came back {opened[-1] - announced:.1f} s after the announcement"
    )
    gaps = [b - a for a, b in zip(opened[1:], opened[2:], strict=False)]
    # every 0.5-1 s, no back-off (which would wait 2 s, then 4 s); 1.6 s leaves room for a loaded machine
    assert all(0.45 <= gap <= 1.6 for gap in gaps), gaps
    assert page.locator("[data-testid=table]").is_visible()


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_a_room_link_whose_room_info_never_answers_is_asked_again(
    new_page: Any, server: str, lang: str
) -> None:
    """A read that hangs (a connection dropped without a word, a preload that never came) must not leave the
    join page blank: after a while the page asks again on a fresh request."""
    import httpx

    code = httpx.post(f"{server}/api/rooms", json={"name": "Sara"}).json()["code"]
    page = new_page(390, 844, lang=lang)
    stuck: list[str] = []

    def first_hangs(route: Any) -> None:
        if not stuck:
            stuck.append(route.request.url)  # never answered: the request hangs until the page gives up
            return
        route.continue_()

    page.route(f"**/api/rooms/{code}", first_hangs)
    page.goto(f"{server}/r/{code}")
    page.wait_for_selector("[data-testid=join-name]", timeout=20_000)
    assert stuck, "the first request for the room's info was held"
    screenshot(page, f"join-after-stuck-read-{lang}.png")


@pytest.mark.parametrize("what", ["room info", "join view"])
def test_a_room_link_whose_first_download_fails_shows_the_join_form_anyway(
    new_page: Any, server: str, what: str
) -> None:
    """A request the network drops on the way (a connection the server closed as the request went out) is
    asked again once: the room's info on a fresh request, a view module under a second address (the browser
    keeps a failed module's failure for the page's life)."""
    import httpx

    code = httpx.post(f"{server}/api/rooms", json={"name": "Sara"}).json()["code"]
    page = new_page(390, 844)
    failed: list[str] = []

    def first_fails(route: Any) -> None:
        # the room info's first request; every download of the view under its own address (its preload and
        # the import that follows), so only the second address can bring it
        if (what == "room info" and not failed) or (
            what == "join view" and "again=" not in route.request.url
        ):
            failed.append(route.request.url)
            route.abort("connectionreset")
            return
        route.continue_()

    pattern = f"**/api/rooms/{code}" if what == "room info" else "**/static/js/views/join.js?v=*"
    page.route(pattern, first_fails)
    page.goto(f"{server}/r/{code}")
    page.wait_for_selector("[data-testid=join-name]")
    assert failed, f"the first download of the {what} was dropped"


@pytest.mark.parametrize("module", ["html.js", "views/settings.js"])
def test_a_room_link_whose_static_import_fails_to_download_loads_again(
    new_page: Any, server: str, module: str
) -> None:
    """A file of app.js's static imports that does not come (the connection dropped, and again when the
    module graph asks for it after its preload) fails the whole graph: the browser runs none of it, and the
    page stayed blank. The page's boot script loads it once more, and the join form shows."""
    import httpx

    code = httpx.post(f"{server}/api/rooms", json={"name": "Sara"}).json()["code"]
    page = new_page(390, 844)
    downloads: list[str] = []
    pages: list[str] = []
    page.on("request", lambda r: pages.append(r.url) if r.resource_type == "document" else None)

    def fails_on_the_first_load(route: Any) -> None:
        # its preload and the module graph's own request (Chromium asks again after a failed preload): on the
        # page's first load, each is dropped
        downloads.append(route.request.url)
        if len(pages) == 1:
            route.abort("connectionreset")
        else:
            route.continue_()

    page.route(f"**/static/js/{module}?v=*", fails_on_the_first_load)
    page.goto(f"{server}/r/{code}")
    page.wait_for_selector("[data-testid=join-name]")
    assert len(downloads) >= 2, downloads  # dropped, then the page's second load brought it
    assert pages == [f"{server}/r/{code}"] * 2, pages
    page.fill("[data-testid=join-name]", "Omid")
    page.click("[data-testid=join-seat]")
    page.wait_for_selector("[data-testid=lobby]")


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_a_page_whose_client_never_downloads_says_so_in_both_languages(
    new_page: Any, server: str, lang: str
) -> None:
    """If the client's files do not come on the second load either, the page says so (in both languages: the
    dictionaries are among what did not come) and offers to try again; it is loaded again only once."""
    import httpx

    code = httpx.post(f"{server}/api/rooms", json={"name": "Sara"}).json()["code"]
    page = new_page(390, 844, lang=lang)
    pages: list[str] = []
    page.on("request", lambda r: pages.append(r.url) if r.resource_type == "document" else None)
    page.route("**/static/js/i18n.js?v=*", lambda route: route.abort("connectionreset"))
    page.goto(f"{server}/r/{code}")
    failed = page.locator("[data-testid=load-failed]")
    failed.wait_for()
    assert failed.get_attribute("role") == "alert"
    assert "The page did not load" in failed.inner_text()
    assert "صفحه بارگیری نشد" in failed.locator("p[lang=fa][dir=rtl]").inner_text()
    page.wait_for_timeout(1500)  # no third load
    assert pages == [f"{server}/r/{code}"] * 2, pages
    screenshot(page, f"load-failed-{lang}.png")
    # The files come again: the link in the message opens the page, which starts.
    page.unroute("**/static/js/i18n.js?v=*")
    page.click("[data-testid=load-failed] a")
    page.wait_for_selector("[data-testid=join-name]")


def test_a_name_typed_on_the_join_form_survives_a_module_arriving_late(new_page: Any, server: str) -> None:
    """The page is drawn again when a module it asked for arrives (here the walkthrough's, for its offer below
    the form): the join form must keep the name being typed (it was drawn anew, empty, and the browser then
    refused the empty form without a word)."""
    import httpx

    code = httpx.post(f"{server}/api/rooms", json={"name": "Sara"}).json()["code"]
    page = new_page(390, 844)
    held: list[Any] = []
    page.route(
        "**/static/js/views/learn.js?v=*", lambda route: held.append(route)
    )  # answered only once the name is typed
    page.goto(f"{server}/r/{code}")
    page.fill("[data-testid=join-name]", "Omid")
    for _ in range(200):  # the route's handler runs while Playwright waits
        if held:
            break
        page.wait_for_timeout(50)
    assert held, "the walkthrough's module was asked for"
    for route in held:
        route.continue_()
    page.wait_for_selector("[data-testid=learn-offer]")
    assert page.input_value("[data-testid=join-name]") == "Omid"
    page.click("[data-testid=join-seat]")
    page.wait_for_selector("[data-testid=lobby]")
