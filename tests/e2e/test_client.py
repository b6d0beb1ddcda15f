"""The browser client, driven in Chromium against the real server: a table played by clicking."""

from __future__ import annotations

import shutil
import subprocess
import time
from typing import Any

import pytest

from .conftest import open_lobby, screenshot

pytestmark = pytest.mark.e2e

XSS_NAME = "<img src=x onerror=alert(1)>"
CARDS_OF = "els => els.map(e => e.dataset.card)"
VERSION_CHANGED = (
    "v => { const t = document.querySelector('[data-testid=table]'); return !t || t.dataset.version !== v; }"
)
POINTS = {"A": 1, "J": 10, "Q": 10, "K": 10, "JK": 15}


def card_points(card: str) -> int:
    rank = "JK" if card == "JK" else card[:-1]
    return POINTS.get(rank) or int(rank)


def table_attr(page: Any, name: str) -> str | None:
    return page.locator("[data-testid=table]").get_attribute(f"data-{name}")


CLOSE_ROUND_RESULTS = """() => {
    const overlay = document.querySelector('#overlay');
    const button = overlay?.querySelector('[data-testid=continue]');
    if (!button || overlay.querySelector('[data-testid=winner]')) return false;
    button.click();
    return true;
}"""


def page_state(page: Any) -> dict[str, Any]:
    """What a stuck test needs to say: the table's data attributes and what the overlay shows."""
    return page.evaluate(
        """() => ({
            table: Object.assign({}, document.querySelector('[data-testid=table]')?.dataset),
            overlay: document.querySelector('#overlay')?.dataset.shown,
            dialog: document.querySelector('dialog[open]')?.innerText.slice(0, 300),
            banner: document.querySelector('[role=status], .banner')?.innerText?.slice(0, 200),
        })"""
    )


def hand_cards(page: Any) -> list[str]:
    return page.locator(".hand .card").evaluate_all(CARDS_OF)


def my_turn(page: Any) -> bool:
    table = page.locator("[data-testid=table]")
    return (
        table.count() == 1
        and table.get_attribute("data-my-turn") == "1"
        and table.get_attribute("data-pending") == "0"
        and page.locator("[data-testid=score-sheet]").count() == 0
    )


def click_card(page: Any, card: Any) -> None:
    """Click a card where it shows when cards overlap: its inline-start edge (left, or right in Persian)."""
    box = card.bounding_box()
    rtl = page.evaluate("document.documentElement.dir") == "rtl"
    card.click(position={"x": box["width"] - 8 if rtl else 8, "y": 20})


def take_turn(page: Any) -> str:
    """Play one move by reading the page: draw the stock; go out when offered; else throw the worst card."""
    version = table_attr(page, "version")
    if table_attr(page, "phase") == "draw":
        stock = page.locator("[data-testid=stock]")
        if stock.get_attribute("aria-disabled") == "true":
            page.click("[data-testid=discard]")
            move = "draw_discard"
        else:
            stock.click()
            move = "draw_stock"
    elif page.locator("[data-testid=go-out]").count():
        page.click("[data-testid=go-out]")
        choices = page.locator(".hand .card.go-out-card")
        assert choices.count() >= 1
        click_card(page, choices.first)
        move = "go_out"
    else:
        # Throw the highest-scoring unmelded card, never a wild one (the page marks those).
        cards_and_wild = "els => els.map(e => [e.dataset.card, e.classList.contains('wild')])"
        pool = page.locator(".hand .group-deadwood .card").evaluate_all(cards_and_wild)
        pool = pool or page.locator(".hand .card").evaluate_all(cards_and_wild)
        card = max(pool, key=lambda item: (not item[1], card_points(item[0])))[0]
        click_card(page, page.locator(f'.hand .card[data-card="{card}"]').first)
        move = "discard"
    page.wait_for_function(VERSION_CHANGED, arg=version)
    return move


def assert_hand_fits(page: Any, width: int) -> None:
    boxes = page.locator(".hand .card").evaluate_all(
        "els => els.map(e => { const r = e.getBoundingClientRect(); return [r.left, r.right]; })"
    )
    assert boxes, "no cards in the hand"
    for left, right in boxes:
        assert left >= 0 and right <= width, f"a card is outside the {width}px viewport: {boxes}"


def test_two_friends_play_round_one_by_clicking(new_page: Any, server: str) -> None:
    started = time.monotonic()
    host = new_page(1024, 760)
    host.goto(f"{server}/")
    host.wait_for_selector("[data-testid=create]")
    screenshot(host, "home.png", full_page=True)
    host.fill("[data-testid=create-name]", "Sara")
    host.click("[data-testid=create]")
    host.wait_for_selector("[data-testid=lobby]")
    link = host.locator("[data-testid=share-link]").input_value()
    assert "/r/" in link

    friend = new_page(375, 812, is_mobile=True, has_touch=True, device_scale_factor=2)
    friend.goto(link)
    friend.fill("[data-testid=join-name]", "Omid")
    friend.click("[data-testid=join-seat]")
    friend.wait_for_selector("[data-testid=lobby]")
    host.wait_for_selector("[data-testid=seat-1] >> text=Omid")
    screenshot(host, "lobby.png")
    host.click("[data-testid=start]")
    for page in (host, friend):
        page.wait_for_selector("[data-testid=table]")
    assert host.locator("[data-testid=wild]").inner_text().strip().endswith("3")

    reloaded = switched = shot_en = shot_fa = False
    went_out_by: Any = None
    for _ in range(400):
        if host.locator("[data-testid=score-sheet]").count():
            break
        assert time.monotonic() - started < 150, "round 1 did not finish in time"
        mover = next((p for p in (host, friend) if my_turn(p)), None)
        if mover is None:
            time.sleep(0.05)
            continue
        phase = table_attr(mover, "phase")
        if mover is friend and phase == "discard" and not reloaded:
            # Reload mid-turn: the seat comes back from the token in localStorage, same hand, same phase.
            before = sorted(hand_cards(friend))
            assert_hand_fits(friend, 375)
            friend.reload()
            friend.wait_for_selector("[data-testid=table][data-my-turn='1']")
            assert table_attr(friend, "phase") == "discard"
            assert sorted(hand_cards(friend)) == before
            reloaded = True
            friend.click("[data-testid=lang]")
            assert friend.evaluate("document.documentElement.dir") == "rtl"
            assert friend.evaluate("document.documentElement.lang") == "fa"
            switched = True
        if mover is host and phase == "discard" and not shot_en:
            screenshot(host, "table-en.png")
            shot_en = True
        if mover is friend and phase == "discard" and switched and not shot_fa:
            screenshot(friend, "table-fa.png")
            shot_fa = True
        if went_out_by is not None and went_out_by is not mover:
            assert mover.locator("[data-testid=final-turns]").is_visible()
        if take_turn(mover) == "go_out":
            went_out_by = mover
    else:
        pytest.fail("round 1 did not reach its score sheet")

    assert reloaded and switched
    assert went_out_by is not None, "nobody went out, yet the round ended"
    for page in (host, friend):
        sheet = page.locator("[data-testid=score-sheet]")
        sheet.wait_for()
        assert sheet.locator("tbody tr").count() == 1
        assert page.locator("[data-testid=reveal] .reveal-hand").count() == 2
    assert "Omid" in host.locator("[data-testid=score-sheet] thead").inner_text()
    assert "جدول امتیاز" in friend.locator("[data-testid=score-sheet] caption").inner_text()
    screenshot(host, "scores.png")

    host.click("[data-testid=continue]")
    assert host.locator("[data-testid=score-sheet]").count() == 0
    assert table_attr(host, "round") == "2"
    # Nobody has moved in round two yet: the move feed starts afresh with the deal (round one's last moves
    # must not read as if they had just been made).
    assert host.locator("[data-testid=feed] li").count() == 0, page_state(host)
    # The Persian choice is remembered across a reload.
    friend.reload()
    friend.wait_for_selector("[data-testid=table]")
    assert friend.evaluate("document.documentElement.dir") == "rtl"


def test_names_and_chat_are_text_and_the_qr_code_holds_the_link(
    new_page: Any, server: str, tmp_path: Any
) -> None:
    page = new_page(390, 844)
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    open_lobby(page, server, XSS_NAME)
    assert page.locator("[data-testid=seat-0] .name").inner_text() == XSS_NAME
    assert page.locator("#main img:not([data-testid=qr])").count() == 0  # the QR code is the only picture

    page.locator("summary", has_text="Chat").click()
    page.fill("[data-testid=chat-input]", "<b>hi</b> <img src=x onerror=alert(2)>")
    page.press("[data-testid=chat-input]", "Enter")
    line = page.locator("[data-testid=chat-log] li").last
    line.wait_for()
    assert "<b>hi</b> <img src=x onerror=alert(2)>" in line.inner_text()
    assert page.locator("[data-testid=chat-log] b, [data-testid=chat-log] img").count() == 0
    page.wait_for_timeout(200)
    assert dialogs == []

    # Losing the network shows "reconnecting…"; getting it back brings the seat back by itself.
    page.context.set_offline(True)
    page.locator("[data-testid=conn]").wait_for()
    page.context.set_offline(False)
    page.locator("[data-testid=conn]").wait_for(state="detached")
    assert page.locator("[data-testid=seat-0].you").count() == 1

    link = page.locator("[data-testid=share-link]").input_value()
    assert link.startswith(server) and "/r/" in link
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server)
    page.click("[data-testid=copy-link]")
    page.locator(".toast.show", has_text="Link copied").wait_for()
    assert page.evaluate("navigator.clipboard.readText()") == link
    zbarimg = shutil.which("zbarimg")
    if zbarimg:  # decode the QR code as a phone camera would
        qr = page.locator("[data-testid=qr]")
        decoded = ""
        # The lobby is drawn again when presence news arrives (coalesced, ~0.25 s): a picture taken while
        # the code is replaced can be blank, so a few pictures are taken; one must hold exactly the link.
        for attempt in range(5):
            shot = tmp_path / f"qr-{attempt}.png"
            try:
                qr.evaluate("el => el.scrollIntoView({block: 'center'})")  # clear of the sticky top bar
                qr.screenshot(path=str(shot), animations="disabled")
            except Exception:
                page.wait_for_timeout(300)
                continue
            decoded = subprocess.run(
                [zbarimg, "-q", "--raw", str(shot)], capture_output=True, text=True, check=False
            ).stdout.strip()
            if decoded:
                break
            page.wait_for_timeout(300)
        assert decoded == link


def test_persian_switch_gives_rtl_and_is_remembered(new_page: Any, server: str) -> None:
    page = new_page(390, 844)
    page.goto(f"{server}/")
    page.wait_for_selector("[data-testid=create]")
    assert page.evaluate("document.documentElement.dir") == "ltr"
    page.click("[data-testid=lang]")
    assert page.evaluate("[document.documentElement.dir, document.documentElement.lang]") == ["rtl", "fa"]
    assert page.locator("[data-testid=create]").inner_text() == "ساختن میز"
    page.reload()
    page.wait_for_selector("[data-testid=create]")
    assert page.evaluate("document.documentElement.dir") == "rtl"
    # Every string exists in both dictionaries.
    missing = page.evaluate(
        """() => import('/static/js/i18n.js').then(({ DICTIONARIES: { en, fa } }) => [
          Object.keys(en).filter((k) => !(k in fa)), Object.keys(fa).filter((k) => !(k in en))])"""
    )
    assert missing == [[], []]


@pytest.mark.parametrize(
    ("lang", "name", "says"),
    [("fa", "Bot 2", "رایانه"), ("en", "S\u0430ra", "one alphabet")],  # a Cyrillic "а" among Latin letters
)
def test_a_refused_name_says_why_in_the_pages_language(
    new_page: Any, server: str, lang: str, name: str, says: str
) -> None:
    page = new_page(390, 844)
    page.goto(f"{server}/")
    page.wait_for_selector("[data-testid=create]")
    if lang == "fa":
        page.click("[data-testid=lang]")
    page.fill("[data-testid=create-name]", name)
    page.click("[data-testid=create]")
    error = page.locator("[role=alert]").filter(has_text=says)
    error.wait_for()
    assert page.url.rstrip("/") == server.rstrip("/"), "no table is made"


FOURTEEN = {
    "hand": ["4H", "5H", "6H", "7H", "9S", "9D", "9C", "10D", "JD", "KS", "2C", "8S", "QC", "AD"],
    "arrangement": {
        "melds": [
            {"kind": "run", "cards": ["4H", "5H", "6H", "7H"]},
            {"kind": "set", "cards": ["9S", "9D", "9C"]},
            {"kind": "run", "cards": ["10D", "JD", "KS"]},
        ],
        "deadwood": ["AD", "2C", "8S", "QC"],
        "penalty": 21,
    },
}

RENDER_TABLE = """async ({lang, grouped, game}) => {
  const i18n = await import('/static/js/i18n.js');
  i18n.setLang(lang);
  // The home page's walkthrough offer, drawn when its module comes (it loads the coach's and the cards' code
  // first), would land in the made-up table.
  localStorage.setItem('tt.learn', 'offered');
  localStorage.setItem('tt.group', grouped ? 'on' : 'off');
  const { createTableView } = await import('/static/js/views/table.js');
  const names = ['Sara', 'Omid', 'Nima', 'Bot 4'];
  const room = { code: 'TEST', spectators: 0, host_seat: 0, seats: [0, 1, 2, 3].map((seat) => (
    { seat, name: names[seat], bot: seat === 3, bot_level: 'normal', connected: seat !== 2 })) };
  const view = { round: 11, rounds: 11, wild_rank: 'K', cards_dealt: 13, dealer: 3, turn: 0, phase: 'discard',
    went_out: null, final_turns: 0, stock_count: 40, discard_top: '7C', discard_count: 3, moves: 9,
    players: [0, 1, 2, 3].map((seat) => ({ seat, card_count: seat ? 13 : 14, total: 40 + seat })),
    scores: [], totals: [40, 41, 42, 43], winners: [], results: [], last_result: null, options: {}, seat: 0,
    drawn: '8S', can_go_out: [], legal: ['discard'], ...game };
  const ctx = { seat: 0, isHost: true, room, game: view, pending: null, goOut: false, version: 1,
    conn: 'online' };
  const noop = () => {};
  const storage = await import('/static/js/storage.js');
  // As app.js's actions change the state (store.js), then draw it again.
  const actions = { play: noop, showScores: noop, setGoOut: noop,
    setGrouping(on) { storage.setGrouping(on); actions.rerender(); },
    reorder(order, card) { ctx.handOrder = order; actions.rerender(); card?.focus(); } };
  const table = createTableView(document.getElementById('main'), actions);
  actions.rerender = () => table.render(ctx);
  actions.rerender();
}"""


@pytest.mark.parametrize("lang", ["en", "fa"])
@pytest.mark.parametrize("grouped", [True, False])
def test_a_375px_phone_shows_the_whole_14_card_hand(
    new_page: Any, server: str, lang: str, grouped: bool
) -> None:
    page = new_page(375, 812, is_mobile=True, device_scale_factor=2)
    page.goto(f"{server}/")
    page.wait_for_selector("[data-testid=create]")
    page.evaluate(RENDER_TABLE, {"lang": lang, "grouped": grouped, "game": FOURTEEN})
    cards = page.locator(".hand .card")
    assert cards.count() == 14
    assert_hand_fits(page, 375)
    # Every card keeps its corner (rank and suit) in view: no card is covered by more than its face.
    lefts = sorted(cards.evaluate_all("els => els.map(e => e.getBoundingClientRect().left)"))
    rows = cards.evaluate_all("els => new Set(els.map(e => Math.round(e.getBoundingClientRect().top))).size")
    assert rows <= 2 if grouped else rows == 1
    if not grouped:
        assert min(b - a for a, b in zip(lefts, lefts[1:], strict=False)) >= 18
    wild = page.locator('.hand .card[data-card="KS"]')
    assert "wild" in (wild.get_attribute("class") or "")
    # Its name says what is printed on it (with its wild badge), then its words and where the server's best
    # melds put it ("..., in a run").
    named = wild.get_attribute("aria-label") or ""
    assert named.startswith(("K♠ wild: king of spades,", "K♠ وحشی: شاه پیک،")), named
    # The wild badge is in view whole: nothing covers a corner of it (where the word is wider than the strip
    # of the card left in view, a star stands in for it).
    wild.scroll_into_view_if_needed()
    assert page.evaluate(BADGES_COVERED) == 0
    if lang == "en" and grouped:
        screenshot(page, "hand-phone.png")
    if not grouped:
        # Drag the first card past the last one; then Shift+Arrow (towards the end) moves the new first card.
        before = hand_cards(page)
        drag_card(page, lang, cards.first, cards.last)
        assert hand_cards(page) == [*before[1:], before[0]]
        page.locator(".hand .card").first.focus()
        page.keyboard.press("Shift+ArrowRight" if lang == "en" else "Shift+ArrowLeft")
        assert hand_cards(page)[:2] == [before[2], before[1]]
        assert page.evaluate("document.activeElement.dataset.card") == before[1]


BADGES_COVERED = """() => [...document.querySelectorAll('.hand .wild-badge')].filter((badge) => {
  const r = badge.getBoundingClientRect();
  const corners = [[r.left + 1, r.top + 1], [r.right - 1, r.top + 1], [r.left + 1, r.bottom - 1],
    [r.right - 1, r.bottom - 1]];
  const card = badge.closest('.card');
  return corners.some(([x, y]) => document.elementFromPoint(x, y)?.closest('.card') !== card);
}).length"""


def drag_card(page: Any, lang: str, card: Any, onto: Any) -> None:
    """Drag ``card`` by its corner to just past ``onto`` (towards the end of the hand). Each card shows its
    inline-start edge (its corner): the left in English, the right in Persian."""
    first, last = card.bounding_box(), onto.bounding_box()
    start_x = first["x"] + 10 if lang == "en" else first["x"] + first["width"] - 10
    page.mouse.move(start_x, first["y"] + 30)
    page.mouse.down()
    end_x = last["x"] + last["width"] - 2 if lang == "en" else last["x"] + 2
    page.mouse.move(end_x, last["y"] + 30, steps=8)
    page.mouse.up()


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_sorting_and_dragging_keep_the_melds_grouped(new_page: Any, server: str, lang: str) -> None:
    page = new_page(390, 844)
    page.goto(f"{server}/")
    page.wait_for_selector("[data-testid=create]")
    page.evaluate(RENDER_TABLE, {"lang": lang, "grouped": True, "game": FOURTEEN})
    melds_of = "gs => gs.map(g => [...g.querySelectorAll('.card')].map(c => c.dataset.card))"
    melds = page.locator(".hand .group:not(.group-deadwood)")
    loose = page.locator(".hand .group-deadwood .card")
    before = melds.evaluate_all(melds_of)
    page.click("[data-testid=sort-suit]")  # spades, hearts, clubs, diamonds; each from the ace up
    assert loose.evaluate_all(CARDS_OF) == ["8S", "2C", "QC", "AD"]
    page.click("[data-testid=sort-rank]")
    assert loose.evaluate_all(CARDS_OF) == ["AD", "2C", "8S", "QC"]
    assert melds.evaluate_all(melds_of) == before  # the melds keep the solver's order

    # Dragging an unmelded card moves it among the unmelded ones; the hand stays grouped.
    drag_card(page, lang, loose.first, loose.last)
    assert loose.evaluate_all(CARDS_OF) == ["2C", "8S", "QC", "AD"]
    assert page.locator("[data-testid=group-toggle]").is_checked()
    # A card of a meld does not move.
    drag_card(page, lang, melds.first.locator(".card").first, loose.last)
    assert melds.evaluate_all(melds_of) == before
    assert loose.evaluate_all(CARDS_OF) == ["2C", "8S", "QC", "AD"]

    # Ungrouped, a sort orders the whole hand; the order is kept when grouping comes back.
    page.locator("[data-testid=group-toggle]").uncheck()
    page.click("[data-testid=sort-rank]")
    assert hand_cards(page) == [
        "AD",
        "2C",
        "4H",
        "5H",
        "6H",
        "7H",
        "8S",
        "9S",
        "9C",
        "9D",
        "10D",
        "JD",
        "QC",
        "KS",
    ]
    page.locator("[data-testid=group-toggle]").check()
    assert loose.evaluate_all(CARDS_OF) == ["AD", "2C", "8S", "QC"]
    assert page.locator("[data-testid=sort-suit]").inner_text() == ("Suit" if lang == "en" else "خال")


def test_a_game_against_a_bot_ends_with_a_winner_and_a_rematch(new_page: Any, server: str) -> None:
    started = time.monotonic()
    page = new_page(1024, 760)
    open_lobby(page, server, bot=True)
    page.click("[data-testid=start]")
    page.wait_for_selector("[data-testid=table]")
    # The first turn by keyboard alone: Enter on the stock, then Enter on the card drawn (focus moves to it).
    page.wait_for_selector("[data-testid=table][data-my-turn='1'][data-phase='draw']")
    page.focus("[data-testid=stock]")
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=table][data-phase='discard']")
    drawn = page.evaluate(
        "document.activeElement.matches('.hand .card.drawn') && document.activeElement.dataset.card"
    )
    assert drawn
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=table][data-my-turn='0'], [data-testid=table][data-phase='draw']")
    assert table_attr(page, "round") != "1" or drawn not in hand_cards(page)
    rounds_seen = 0
    while not page.locator("[data-testid=winner]").count():
        assert time.monotonic() - started < 240, f"the game did not end in time: {page_state(page)}"
        # A round's results are closed with their button, but never the game's end: the final state may
        # arrive between a look and a click, so the page is asked both in one step of its own.
        if page.evaluate(CLOSE_ROUND_RESULTS):
            rounds_seen += 1
        elif my_turn(page):
            take_turn(page)
        else:
            time.sleep(0.02)
    assert page.locator("[data-testid=score-sheet] tbody tr").count() == 11
    assert rounds_seen == 10  # every earlier round showed its reveal
    screenshot(page, "game-over.png")
    page.click("[data-testid=rematch]")
    page.wait_for_selector("[data-testid=table][data-round='1']")
    assert page.locator("[data-testid=score-sheet]").count() == 0
