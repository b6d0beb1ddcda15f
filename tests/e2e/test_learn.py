"""How to play and the coach, in Chromium: the walkthrough is offered once per browser (home page and a room
link's join form, without taking the form's focus), its pages turn by buttons, keys and in both languages, and
it is a tap away at the table; the coach points at a pile before the draw and at a card after it, plays only
when asked ("Do that for me"), works for a seat played for practice where hints are off, and switches itself
off once the person's first game has ended."""

from __future__ import annotations

import asyncio
import json
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from app.engine import Options, min_penalty
from app.engine.solver import min_penalty_after_discard
from tests.api.test_history import quick_move
from tests.api.wsclient import Client, create_room

from .conftest import open_lobby, screenshot
from .test_table import FrameLog

pytestmark = pytest.mark.e2e

PAGES = 6


def counter(page: Any) -> str:
    return page.locator("[data-testid=learn-counter]").inner_text()


def flip_through(page: Any, lang: str, size: str) -> list[str]:
    """Turn every page with Next (a screenshot of each); return the titles."""
    titles = []
    for n in range(1, PAGES + 1):
        page.wait_for_selector(f"[data-testid=learn] >> text={n if lang == 'en' else '۰۱۲۳۴۵۶۷۸۹'[n]}")
        titles.append(page.locator("#learn-title").inner_text())
        screenshot(page, f"learn-{lang}-{size}-{n}.png")
        if n < PAGES:
            page.click("[data-testid=learn-next]")
    return titles


def test_the_walkthrough_is_offered_on_a_first_visit_only_and_its_pages_turn(
    new_page: Any, server: str
) -> None:
    page = new_page(390, 844)
    page.goto(f"{server}/")
    offer = page.locator("[data-testid=learn-offer]")
    offer.wait_for()
    assert "New here?" in offer.inner_text()
    screenshot(page, "learn-offer-en-phone.png")
    page.click("[data-testid=learn-offer-open]")
    dialog = page.locator("[data-testid=learn][role=dialog][aria-modal=true]")
    dialog.wait_for()
    assert page.locator("[data-testid=learn-offer]").count() == 0  # taken up: the banner goes
    assert counter(page) == "Page 1 of 6"
    assert page.locator("[data-testid=learn-back]").is_disabled()
    assert page.evaluate("document.activeElement.dataset.testid") == "learn-next"
    titles = flip_through(page, "en", "phone")
    assert (
        titles[0].startswith("The goal")
        and titles[2] == "Melds: sets and runs"
        and titles[5].startswith("A coach")
    )
    # The melds page draws real cards, a wild one among them; the rounds table names every wild rank.
    page.click("[data-testid=learn-back]")
    page.click("[data-testid=learn-back]")
    page.click("[data-testid=learn-back]")
    assert counter(page) == "Page 3 of 6"
    assert page.locator("[data-testid=learn-body] .card").count() == 10
    assert page.locator("[data-testid=learn-body] .card.wild[data-card='3S']").count() == 1
    # Keys: right arrow is next in English, left is back; Tab stays inside; Escape closes.
    page.keyboard.press("ArrowRight")
    assert counter(page) == "Page 4 of 6"
    page.keyboard.press("ArrowLeft")
    assert counter(page) == "Page 3 of 6"
    for _ in range(6):
        page.keyboard.press("Tab")
        assert page.evaluate("!!document.activeElement.closest('[data-testid=learn]')")
    page.keyboard.press("Escape")
    assert dialog.count() == 0
    # A touch swipe (towards the start) turns the page too.
    page.click("[data-testid=learn-open]")
    dialog.wait_for()
    box = page.locator("[data-testid=learn-body]").bounding_box()
    y = box["y"] + 20
    page.mouse.move(box["x"] + box["width"] - 10, y)
    page.mouse.down()
    page.mouse.move(box["x"] + 10, y, steps=5)
    page.mouse.up()
    assert counter(page) == "Page 2 of 6"
    page.click("[data-testid=learn-close]")
    assert page.evaluate("document.activeElement.dataset.testid") == "learn-open"  # focus goes back

    # Not offered again on this browser; the "?" in the top bar stays.
    page.reload()
    page.wait_for_selector("[data-testid=create-name]")
    page.wait_for_timeout(300)
    assert page.locator("[data-testid=learn-offer]").count() == 0
    assert page.locator("[data-testid=learn-open]").is_visible()


def test_the_walkthrough_in_persian_on_a_laptop(new_page: Any, server: str) -> None:
    page = new_page(1280, 800, lang="fa")
    page.goto(f"{server}/")
    page.locator("[data-testid=learn-offer]", has_text="تازه آمده‌اید").wait_for()
    screenshot(page, "learn-offer-fa-laptop.png")
    page.click("[data-testid=learn-offer-open]")
    assert counter(page) == "صفحه‌ی ۱ از ۶"
    titles = flip_through(page, "fa", "laptop")
    assert titles[2] == "ترکیب‌ها: ست و ردیف" and titles[4] == "امتیازها"
    assert page.locator("[data-testid=learn-next]").inner_text() == "بازی کنیم"
    # Right to left: the left arrow is next, the right arrow back.
    page.keyboard.press("ArrowRight")
    assert counter(page) == "صفحه‌ی ۵ از ۶"
    page.keyboard.press("ArrowLeft")
    assert counter(page) == "صفحه‌ی ۶ از ۶"
    page.click("[data-testid=learn-next]")  # the last page's button closes it
    assert page.locator("[data-testid=learn]").count() == 0
    # The same pages in English on a laptop, for the screenshots.
    page.click("[data-testid=lang]")
    page.click("[data-testid=learn-open]")
    flip_through(page, "en", "laptop")


def test_the_offer_stays_out_of_the_way_of_a_room_links_join_form(new_page: Any, server: str) -> None:
    host = new_page(1024, 760)
    code = open_lobby(host, server, "Host")
    guest = new_page(390, 844, lang="fa")
    guest.goto(f"{server}/r/{code}")
    guest.wait_for_selector("[data-testid=join-name]")
    offer = guest.locator("[data-testid=learn-offer]")
    offer.wait_for()
    assert (
        guest.evaluate("document.activeElement.dataset.testid") == "join-name"
    )  # the form keeps the keyboard
    form_bottom = guest.locator("[data-testid=join-seat]").bounding_box()
    assert offer.bounding_box()["y"] > form_bottom["y"]  # below the form, not over it
    screenshot(guest, "learn-offer-join-fa-phone.png")
    guest.click("[data-testid=learn-offer-open]")  # the pages on a Persian phone
    flip_through(guest, "fa", "phone")
    guest.click("[data-testid=learn-close]")
    guest.fill("[data-testid=join-name]", "Omid")
    guest.click("[data-testid=join-seat]")
    guest.wait_for_selector("[data-testid=lobby]")


# Each frame, where the home form's buttons stand (their distinct tops, rounded): a form that moved while the
# page loaded moved under whoever was about to press it.
FORM_TOPS = """
window.__formTops = {};
const watchForm = () => {
  for (const id of ['add-bot', 'create']) {
    const el = document.querySelector(`[data-testid=${id}]`);
    if (el) (window.__formTops[id] ??= new Set()).add(Math.round(el.getBoundingClientRect().top + scrollY));
  }
  requestAnimationFrame(watchForm);
};
requestAnimationFrame(watchForm);
"""


@pytest.mark.parametrize(("lang", "width", "height"), [("fa", 390, 844), ("en", 1280, 800)])
def test_the_home_form_stands_still_while_the_offer_arrives(
    new_page: Any, server: str, lang: str, width: int, height: int
) -> None:
    """On a first visit the offer stands above the home form, and the walkthrough's files come after the
    form's: the form must not be drawn first and then pushed down under a finger (a tap on "Add a computer"
    that lands on the moving page is lost: seen in CI as a table opened without its bot). The walkthrough's
    module is held until the home page's own module is here, then let go."""
    page = new_page(width, height, lang=lang)
    page.add_init_script(FORM_TOPS)
    held: list[Any] = []
    page.route("**/static/js/views/learn.js*", lambda route: held.append(route))
    with page.expect_request_finished(lambda r: "/static/js/views/home.js" in r.url):
        page.goto(f"{server}/")
    deadline = time.monotonic() + 15
    while not held:  # the page asks for the walkthrough's module on a first visit
        assert time.monotonic() < deadline, "the walkthrough's module was never asked for"
        page.wait_for_timeout(20)
    for route in held:
        route.continue_()
    page.locator("[data-testid=learn-offer]").wait_for()
    page.evaluate("new Promise(requestAnimationFrame)")  # a frame with the offer drawn, measured
    tops = page.evaluate("Object.fromEntries(Object.entries(window.__formTops).map(([k, v]) => [k, [...v]]))")
    assert set(tops) == {"add-bot", "create"}, tops
    assert all(len(seen) == 1 for seen in tops.values()), f"the form moved while the page loaded: {tops}"
    page.fill("[data-testid=create-name]", "Sara")
    page.click("[data-testid=add-bot]")
    page.click("[data-testid=create]")
    page.wait_for_selector("[data-testid=lobby]")
    page.wait_for_selector("[data-testid=start]:not([disabled])")  # the bot took the second seat


def test_the_home_form_does_not_wait_for_an_offer_that_cannot_come(new_page: Any, server: str) -> None:
    """The walkthrough's module that cannot be downloaded (under both its addresses) holds the home form no
    longer: the form is drawn without the offer, and a table can be opened."""
    page = new_page(390, 844)
    refused: list[str] = []

    def refuse(route: Any) -> None:
        refused.append(route.request.url)
        route.abort("connectionreset")

    page.route("**/static/js/views/learn.js*", refuse)
    page.goto(f"{server}/")
    page.fill("[data-testid=create-name]", "Sara")
    assert len(refused) == 2, refused  # its address, then the second one; then not again
    assert page.locator("[data-testid=learn-offer]").count() == 0
    page.click("[data-testid=create]")
    page.wait_for_selector("[data-testid=lobby]")
    assert len(refused) == 2, refused
    assert page.locator("#toast.show").count() == 0  # nothing to say about a banner that did not come


def draw_hint(game: dict[str, Any]) -> str:
    """The pile the server's rule names for the page's hand: the discard when it lowers the fewest points
    the hand can be left with after its best discard, else the stock."""
    options = Options.from_dict(game["options"])
    kept = min_penalty(game["hand"], game["wild_rank"], options)
    taken = min_penalty_after_discard([*game["hand"], game["discard_top"]], game["wild_rank"], options)
    return "discard" if taken < kept else "stock"


@pytest.mark.parametrize(
    ("lang", "size"), [("en", (390, 844)), ("fa", (1280, 800)), ("en", (1280, 800)), ("fa", (390, 844))]
)
def test_the_coach_points_at_a_pile_then_a_card_and_plays_only_when_asked(
    new_page: Any, server: str, lang: str, size: tuple[int, int]
) -> None:
    page = new_page(*size, lang=lang)
    tap = FrameLog(page)
    open_lobby(page, server, bot=True)  # hints stay off: the coach works for a seat played for practice
    page.click("[data-testid=learn-open]")  # the coach is offered with the walkthrough (its last page)
    for _ in range(PAGES - 1):
        page.click("[data-testid=learn-next]")
    page.check("[data-testid=learn-coach]")
    page.click("[data-testid=learn-next]")
    page.check("[data-testid=practice]")
    page.wait_for_selector("[data-testid^=practice-]")
    page.click("[data-testid=start]")
    page.wait_for_selector("[data-testid=table][data-my-turn='1'][data-phase='draw']")

    target = page.locator(".piles .coach-target")
    target.wait_for()
    assert tap.last_state is not None
    game = tap.last_state["game"]
    assert game["options"]["hints"] is False
    pile = draw_hint(game)
    assert target.get_attribute("data-key") == pile
    line = page.locator("[data-testid=coach-line]").inner_text()
    words = {"en": {"discard": "discard pile", "stock": "stock"}, "fa": {"discard": "زمین", "stock": "دسته"}}
    assert words[lang][pile] in line, line
    screenshot(page, f"coach-draw-{lang}-{size[0]}.png")
    page.wait_for_timeout(500)
    assert (
        page.locator("[data-testid=table]").get_attribute("data-phase") == "draw"
    )  # it never plays by itself

    page.click("[data-testid=coach-do]")
    page.wait_for_selector("[data-testid=table][data-phase='discard']")
    feed = page.locator("[data-testid=feed]").inner_text()
    if pile == "discard":
        assert ("You took" if lang == "en" else "برداشتید") in feed
    else:
        assert ("You drew from the stock" if lang == "en" else "از دسته برداشتید") in feed
    card = page.locator(".hand .card.coach-target")
    card.wait_for()
    thrown = card.get_attribute("data-card")
    game = tap.last_state["game"]
    options = Options.from_dict(game["options"])
    left = {}
    for choice in set(game["hand"]):
        rest = list(game["hand"])
        rest.remove(choice)
        left[choice] = min_penalty(rest, game["wild_rank"], options)
    assert thrown is not None and left[thrown] == min(left.values())
    screenshot(page, f"coach-discard-{lang}-{size[0]}.png")
    moves_before = len([m for m in tap.sent if m["type"] == "action"])
    page.click("[data-testid=coach-do]")
    page.wait_for_selector("[data-testid=table][data-my-turn='0'], [data-testid=table][data-phase='draw']")
    # The card it pointed at was thrown, and the server took the move: the state that answers it (whose hand
    # may be the next round's deal, which can hold the same card, when the move ended the round).
    deadline = time.monotonic() + 10
    while (answer := answer_to_first_move_after(tap, moves_before)) is None and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    move = [m for m in tap.sent if m["type"] == "action"][moves_before]
    assert move["action"]["type"] in ("discard", "go_out") and move["action"]["card"] == thrown, move
    assert answer is not None, "the coach's move was never answered"
    if answer["game"]["round"] == game["round"]:
        assert thrown not in answer["game"]["hand"]

    # Switched off at the table: no more pointing. When the round ends with this move or just after it
    # (someone went out: the bot's last turn follows hers, or hers was the last), its results open first,
    # perhaps seconds after the ack: they are waited for and closed.
    after = answer["game"]
    if game["went_out"] is not None or after["went_out"] is not None or after["round"] != game["round"]:
        page.wait_for_selector("#overlay .dialog")
        page.keyboard.press("Escape")
        page.wait_for_selector("#overlay .dialog", state="detached")
    assert page.locator("#overlay .dialog").count() == 0
    page.uncheck("[data-testid=coach-toggle]")
    assert page.locator(".coach-target").count() == 0
    assert page.locator("[data-testid=coach-line]").count() == 0


def answer_to_first_move_after(tap: FrameLog, moves_before: int) -> dict[str, Any] | None:
    """The server's state that acknowledged the page's first move after its first ``moves_before``."""
    moves = [m for m in tap.sent if m["type"] == "action"][moves_before:]
    if not moves:
        return None
    return next((m for m in tap.received if m["type"] == "state" and m.get("ack") == moves[0]["id"]), None)


async def play_to_the_end(server: str, code: str, token: str) -> None:
    """Play the person's seat from Python (a second socket with the same token) until the game ends."""
    client = await Client.connect(server, code)
    await client.hello(token)
    await client.send({"type": "start"})
    while True:
        view = client.state["game"] if client.state else None
        if view is not None and view["phase"] == "game_over":
            break
        if view is not None and view["turn"] == view["seat"] and view["legal"]:
            await asyncio.sleep(0.07)
            answer = await client.act(quick_move(view), version=client.state["version"])
            if answer["type"] == "ack":
                await client.wait_version(answer["version"])
            continue
        await client.next("state", timeout=20)
    await client.close()


def test_the_coach_switches_itself_off_after_the_first_finished_game(new_page: Any, server: str) -> None:
    with ThreadPoolExecutor(1) as pool:  # Playwright's sync API holds this thread's event loop
        created = pool.submit(asyncio.run, create_room(server, "Sara", seats=2, bots=["normal"])).result(
            timeout=30
        )
    code, token = created["code"], created["token"]
    page = new_page(390, 844)
    page.context.add_init_script(  # this browser holds the seat, and its person chose the coach
        f"localStorage.setItem('tt.token.{code}', {json.dumps(token)});"
        " localStorage.getItem('tt.coach') || localStorage.setItem('tt.coach', 'on');"
    )
    page.goto(f"{server}/r/{code}")
    page.wait_for_selector("[data-testid=lobby]")
    with ThreadPoolExecutor(1) as pool:  # Playwright's sync API holds this thread's event loop
        pool.submit(asyncio.run, play_to_the_end(server, code, token)).result(timeout=240)
    page.locator(".toast.show", has_text="the coach is off now").wait_for(timeout=30_000)
    assert page.evaluate("localStorage.getItem('tt.coach')") == "done"
    page.reload()
    page.wait_for_selector("[data-testid=winner], [data-testid=table]")
    page.wait_for_timeout(300)
    assert page.locator(".toast.show", has_text="coach").count() == 0  # said once


def test_where_the_coach_may_not_ask_it_says_so_and_points_at_nothing(new_page: Any, server: str) -> None:
    page = new_page(390, 844)
    page.context.add_init_script("localStorage.setItem('tt.coach', 'on');")
    asked: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda frame: asked.append(str(frame))))
    # The coach turns hints on in the home form; this host turns them off again (and the seat counts in the
    # standings), and starts all the same, past the lobby's question.
    page.goto(f"{server}/")
    page.fill("[data-testid=create-name]", "Sara")
    page.click("[data-testid=add-bot]")
    page.locator("#opt-hints").uncheck()
    page.click("[data-testid=create]")
    page.locator("[data-testid=coach-warning]").wait_for()
    page.click("[data-testid=start]")
    page.wait_for_selector("[data-testid=table][data-my-turn='1'][data-phase='draw']")
    line = page.locator("[data-testid=coach-line]")
    line.wait_for()
    assert "practice" in line.inner_text()
    assert page.locator(".coach-target").count() == 0
    assert page.locator("[data-testid=coach-do]").count() == 0
    assert not [f for f in asked if '"hint"' in f]  # it does not ask the server a question it would refuse
    screenshot(page, "coach-not-here-en-390.png")


@pytest.mark.parametrize("where", ["home page", "join form"])
def test_an_offer_left_standing_does_not_follow_to_the_lobby_or_the_table(
    new_page: Any, server: str, where: str
) -> None:
    """A newcomer who neither takes up nor dismisses the offer and sits down: the offer belongs to the home
    page and a join form, never above a lobby or a game."""
    host = new_page(1024, 760)
    code = open_lobby(host, server, "Sara")
    page = new_page(390, 844)
    if where == "home page":
        page.goto(f"{server}/")
        page.locator("[data-testid=learn-offer]").wait_for()
        page.evaluate(
            "code => { history.pushState(null, '', '/r/' + code); "
            "dispatchEvent(new PopStateEvent('popstate')); }",
            code,
        )
    else:
        page.goto(f"{server}/r/{code}")
        page.locator("[data-testid=learn-offer]").wait_for()
    page.fill("[data-testid=join-name]", "Omid")
    page.click("[data-testid=join-seat]")
    page.wait_for_selector("[data-testid=lobby]")
    assert page.locator("[data-testid=learn-offer]").count() == 0, "the offer is above the lobby"
    host.click("[data-testid=start]")
    page.wait_for_selector("[data-testid=table]")
    assert page.locator("[data-testid=learn-offer]").count() == 0, "the offer is above the table"
