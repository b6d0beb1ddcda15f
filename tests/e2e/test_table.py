"""The live table in Chromium: presence, going out by a tap, offline moves, RTL and the phone layout."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from app.engine import Options, min_penalty

from .conftest import ROOT, open_lobby, screenshot
from .test_client import CLOSE_ROUND_RESULTS, VERSION_CHANGED, click_card, table_attr, take_turn

pytestmark = pytest.mark.e2e


def start_against_a_bot(page: Any, server: str, name: str = "Sara") -> None:
    """Open a table for the page's person and one bot, start it, and wait for the person's first turn."""
    open_lobby(page, server, name, bot=True)
    page.click("[data-testid=start]")
    page.wait_for_selector("[data-testid=table][data-my-turn='1'][data-phase='draw']")


class SocketTap:
    """Sits between the page and the server's WebSocket: passes every frame on, keeps the last state the
    server sent, and can send the page a message of its own (as a newer server would), or the server one in
    the page's name (a move the page would never send)."""

    def __init__(self, page: Any) -> None:
        self.page_side: Any = None
        self.server_side: Any = None
        self.last_state: dict[str, Any] | None = None
        page.route_web_socket(re.compile(r"/ws/"), self._route)

    def _route(self, ws: Any) -> None:
        server = ws.connect_to_server()
        self.page_side = ws
        self.server_side = server
        ws.on_message(server.send)
        server.on_message(self._from_server)

    def _from_server(self, message: str | bytes) -> None:
        data = json.loads(message)
        if data.get("type") == "state":
            self.last_state = data
        assert self.page_side is not None
        self.page_side.send(message)

    def until_option(self, page: Any, name: str, value: Any, seconds: float = 15) -> None:
        """Until the server's latest state says the table's option ``name`` is ``value``: a start sent before
        the option's change is in would start the game without it."""
        for _ in range(int(seconds / 0.05)):
            state = self.last_state
            if state is not None and state["room"]["options"].get(name) == value:
                return
            page.wait_for_timeout(50)
        options = None if self.last_state is None else self.last_state["room"]["options"]
        raise AssertionError(f"the server never said {name}={value!r}: {options}")

    def send(self, message: dict[str, Any]) -> None:
        assert self.page_side is not None
        self.page_side.send(json.dumps(message))

    def send_to_server(self, message: dict[str, Any]) -> None:
        assert self.server_side is not None
        self.server_side.send(json.dumps(message))


class FrameLog(SocketTap):
    """A tap that also keeps every message each way (``sent``: the page's, ``received``: the server's)."""

    def __init__(self, page: Any) -> None:
        super().__init__(page)
        self.sent: list[dict[str, Any]] = []
        self.received: list[dict[str, Any]] = []

    def _route(self, ws: Any) -> None:
        server = ws.connect_to_server()
        self.page_side = ws
        self.server_side = server

        def to_server(message: str | bytes) -> None:
            self.sent.append(json.loads(message))
            server.send(message)

        ws.on_message(to_server)
        server.on_message(self._from_server)

    def _from_server(self, message: str | bytes) -> None:
        self.received.append(json.loads(message))
        super()._from_server(message)


def test_the_page_takes_the_acks_of_its_moves_inside_the_states(new_page: Any, server: str) -> None:
    """The page's hello asks for ``"acks": "in_state"``; each move is answered by the state it made (its
    ``ack`` clears the pending move at once, as an ack message did), and no ack message comes."""
    page = new_page(1024, 760)
    tap = FrameLog(page)
    start_against_a_bot(page, server)
    hellos = [m for m in tap.sent if m["type"] == "hello"]
    assert hellos and all(m.get("acks") == "in_state" for m in hellos), hellos
    for expected in ("draw", "discard"):
        page.wait_for_selector("[data-testid=table][data-my-turn='1']")
        assert table_attr(page, "phase") == expected
        take_turn(page)
        assert table_attr(page, "pending") == "0"  # the state that showed the move answered it
    actions = [m["id"] for m in tap.sent if m["type"] == "action"]
    acked = [m["ack"] for m in tap.received if m["type"] == "state" and "ack" in m]
    assert len(actions) == 2 and acked == actions, (actions, acked)
    assert [m for m in tap.received if m["type"] == "ack"] == []


def test_a_presence_message_updates_the_seats_and_keeps_the_game(new_page: Any, server: str) -> None:
    page = new_page(1024, 760)
    tap = SocketTap(page)
    start_against_a_bot(page, server)
    assert tap.last_state is not None
    version = tap.last_state["version"]
    assert table_attr(page, "version") == str(version)
    hand = page.locator(".hand .card").evaluate_all("els => els.map(e => e.dataset.card)")
    assert page.locator("[data-testid=auto-0]").count() == 0

    # The same version, only the room changed: the person's seat is now played by the server ("auto").
    room = json.loads(json.dumps(tap.last_state["room"]))
    room["seats"][0]["auto"] = True
    room["seats"][0]["connected"] = False
    tap.send({"type": "presence", "version": version, "room": room})
    page.locator("[data-testid=auto-0]").wait_for()
    assert page.locator("[data-testid=player-0] .presence.offline").count() == 1
    assert table_attr(page, "version") == str(version)
    assert table_attr(page, "phase") == "draw" and table_attr(page, "my-turn") == "1"
    assert page.locator(".hand .card").evaluate_all("els => els.map(e => e.dataset.card)") == hand

    # An older presence is ignored.
    room["seats"][0]["auto"] = False
    tap.send({"type": "presence", "version": version - 1, "room": room})
    page.wait_for_timeout(300)
    assert page.locator("[data-testid=auto-0]").count() == 1

    # The game goes on from the kept view: a draw is still accepted by the server.
    page.click("[data-testid=stock]")
    page.wait_for_selector("[data-testid=table][data-phase='discard']")


# A table drawn from a made-up view (no server game needed): ``window.__plays`` records the moves the page
# would send; ``window.__update(patch)`` applies a new view (as the next state would) and renders again.
RENDER = """async ({lang, game, players, timer}) => {
  const i18n = await import('/static/js/i18n.js');
  i18n.setLang(lang);
  // The home page's walkthrough offer, drawn when its module comes (it loads the coach's and the cards' code
  // first), would land in the made-up table.
  localStorage.setItem('tt.learn', 'offered');
  const { createTableView } = await import('/static/js/views/table.js');
  const n = players ?? 2;
  const names = ['Sara', 'Omid', 'Nima', 'Lale', 'Arash', 'Mina', 'Dara', 'Kian'];
  const room = { code: 'TEST', spectators: 0, host_seat: 0, status: 'playing', options: {},
    turn_deadline: timer ? new Date(Date.now() + 25000).toISOString() : null,
    server_time: timer ? new Date().toISOString() : null,
    seats: Array.from({ length: n }, (_, seat) => (seat === n - 1 && n > 1
      ? { seat, name: `Bot ${seat + 1}`, bot: true, bot_level: 'normal', connected: true, auto: false }
      : { seat, name: names[seat], bot: false, bot_level: null, connected: true, auto: false })) };
  const view = { round: 1, rounds: 11, wild_rank: '3', cards_dealt: 3, dealer: n - 1, turn: 0,
    phase: 'discard', went_out: null, final_turns: 0, stock_count: 27, discard_top: '7C',
    discard_count: 18, moves: 9,
    players: Array.from({ length: n }, (_, seat) => ({ seat, card_count: 3, total: 100 + seat })),
    scores: [], totals: Array(n).fill(0), winners: [], results: [], last_result: null, options: {}, seat: 0,
    hand: ['5H', '5D', '5S', 'KC'], drawn: 'KC',
    arrangement: { melds: [{ kind: 'set', cards: ['5H', '5D', '5S'] }], deadwood: ['KC'], penalty: 10 },
    can_go_out: [], legal: ['discard'], ...game };
  const ctx = { route: { code: 'TEST' }, seat: 0, isHost: true, room, game: view, pending: null, goOut: false,
    version: 1, feed: [], conn: 'online' };
  window.__plays = [];
  const storage = await import('/static/js/storage.js');
  const coach = await import('/static/js/views/coach.js');
  // As app.js's actions change the state (store.js), then draw it again.
  const change = (fn) => { fn(); actions.rerender(); };
  const actions = { play: (move) => window.__plays.push(move), showScores() {}, send() {}, toast() {},
    setGoOut(on) { change(() => { ctx.goOut = on; }); },
    setGrouping(on) { change(() => storage.setGrouping(on)); },
    setConfirmDiscards(on) { change(() => { storage.setConfirmDiscards(on); ctx.selected = null; }); },
    select(card) { change(() => { ctx.selected = card; }); },
    reorder(order, card) { change(() => { ctx.handOrder = order; }); card?.focus(); },
    setFeedOpen(open) { change(() => { ctx.feedOpen = open; }); },
    setHostBoxOpen(open) { change(() => { ctx.hostBoxOpen = open; }); },
    setCoach(on) { change(() => coach.setCoach(on)); } };
  const table = createTableView(document.getElementById('main'), actions);
  actions.rerender = () => table.render(ctx);
  window.__ctx = ctx;
  window.__update = (patch, roomPatch = {}) => {
    ctx.game = { ...ctx.game, ...patch };
    ctx.room = { ...ctx.room, ...roomPatch };
    ctx.version += 1;
    table.render(ctx);
  };
  actions.rerender();
}"""


def render_table(page: Any, server: str, lang: str = "en", **kwargs: Any) -> None:
    page.goto(f"{server}/")
    page.wait_for_selector("[data-testid=create]")
    page.evaluate(RENDER, {"lang": lang, "game": kwargs.pop("game", {}), **kwargs})
    page.wait_for_selector("[data-testid=table]")


def test_tapping_the_card_that_goes_out_goes_out(new_page: Any, server: str) -> None:
    page = new_page(390, 844, is_mobile=True, has_touch=True)
    render_table(page, server, game={"can_go_out": ["KC"], "legal": ["discard", "go_out"]})
    page.locator('.hand .card[data-card="KC"]').tap()
    assert page.evaluate("window.__plays") == [{"type": "go_out", "card": "KC"}]


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_no_dot_separator_that_reads_as_a_persian_zero(new_page: Any, server: str, lang: str) -> None:
    page = new_page(390, 844)
    render_table(page, server, lang)
    text = page.inner_text("#main")
    assert "·" not in text, text
    # The counts stand apart from their words: "Stock" and "27 left" are separate pieces of the label.
    label = page.locator("[data-testid=stock-label]")
    assert label.locator(".pile-count").inner_text() in ("27 left", "۲۷ مانده")


def test_a_move_updates_the_table_without_rebuilding_it(new_page: Any, server: str) -> None:
    page = new_page(390, 844)
    render_table(page, server, game={"went_out": 1, "final_turns": 1, "phase": "draw", "legal": []})
    page.locator("[data-testid=final-turns]").wait_for()
    # Mark the banner and the hand, and put the keyboard on a card.
    page.evaluate("""() => {
      document.querySelector('[data-testid=final-turns]').__kept = true;
      document.querySelector('.hand').__kept = true;
      document.querySelector('.hand .card[data-card="KC"]').focus();
    }""")
    # Another seat moves: its card count, the piles and the turn change; the banner and the hand do not.
    page.evaluate("""() => window.__update({
      stock_count: 26, discard_top: '9D', discard_count: 19, moves: 10,
      players: window.__ctx.game.players.map((p) => (p.seat === 1 ? { ...p, card_count: 3 } : p)),
    })""")
    assert page.locator("[data-testid=discard-label] .pile-count").inner_text() == "19 cards"
    kept = page.evaluate("""() => [
      !!document.querySelector('[data-testid=final-turns]').__kept,
      !!document.querySelector('.hand').__kept,
      document.activeElement.dataset.card,
    ]""")
    assert kept == [True, True, "KC"], "the banner's animation restarted, or the hand lost its focus"
    screenshot(page, "final-turns-phone.png")
    # My own hand changes: the hand is drawn again (and shows the change).
    page.evaluate("""() => window.__update({ hand: ['5H', '5D', '5S', 'KC', '2D'], legal: ['discard'],
      arrangement: { melds: [{ kind: 'set', cards: ['5H', '5D', '5S'] }], deadwood: ['KC', '2D'],
        penalty: 12 } })""")
    assert page.locator(".hand .card").count() == 5
    assert page.evaluate("() => !!document.querySelector('[data-testid=final-turns]').__kept")


# The x of the first rank character and of the first suit symbol inside ``el``, as laid out on screen.
RANK_AND_SUIT_X = """el => {
  const xs = {};
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let i = 0; i < node.data.length; i++) {
      const ch = node.data[i];
      const kind = /[0-9۰-۹AJQK]/.test(ch) ? 'rank' : /[♠♥♦♣]/.test(ch) ? 'suit' : null;
      if (!kind || kind in xs) continue;
      const range = document.createRange();
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      xs[kind] = range.getBoundingClientRect().left;
    }
  }
  return xs;
}"""

FA_TABLE = {
    "game": {"wild_rank": "3", "turn": 1, "phase": "draw", "legal": []},
    "players": 3,
}


def test_persian_table_reads_right_to_left_with_persian_digits(new_page: Any, server: str) -> None:
    page = new_page(390, 844)
    render_table(page, server, "fa", **FA_TABLE)
    page.evaluate("""() => { window.__ctx.feed = [{ kind: 'discard', seat: 1, card: '5C' }];
      window.__update({}); }""")
    feed = page.locator("[data-testid=feed] li").first
    xs = feed.evaluate(RANK_AND_SUIT_X)
    assert xs["rank"] < xs["suit"], f"the card reads suit first (♣5) in the move feed: {xs}"
    # Digits are Persian outside the cards' own faces; the bot's default name is in Persian too.
    text = page.evaluate("""() => { const main = document.getElementById('main').cloneNode(true);
      main.querySelectorAll('.card').forEach((c) => c.remove()); return main.innerText; }""")
    assert not re.search(r"[0-9]", text), text
    assert page.locator("[data-testid=wild]").inner_text() == "وحشی: ۳"
    bot = page.locator("[data-testid=player-2] .name").inner_text()
    assert bot == "رایانه ۳", bot


def test_every_error_code_has_a_message_in_both_languages(new_page: Any, server: str) -> None:
    protocol = (ROOT / "docs" / "protocol.md").read_text()
    section = protocol.split("## Error codes", 1)[1].split("\n## ", 1)[0]
    codes = re.findall(r"^\| `([a-z_]+)` \|", section, flags=re.MULTILINE)
    assert len(codes) >= 20, "the error table of docs/protocol.md was not found"
    page = new_page(390, 844)
    page.goto(f"{server}/")
    page.wait_for_selector("[data-testid=create]")
    # The passkeys' codes come only from /api/passkeys, asked by the views that load i18n-passkeys.js (it adds
    # its strings, those codes' messages among them, to i18n.js's dictionaries).
    missing = page.evaluate(
        """codes => import('/static/js/i18n-passkeys.js').then(() => import('/static/js/i18n.js')).then(
          ({ DICTIONARIES }) => Object.fromEntries(
            ['en', 'fa'].map((l) => [l, codes.filter((c) => !DICTIONARIES[l][`err_${c}`])])))""",
        [*codes, "not_found", "network"],
    )
    assert missing == {"en": [], "fa": []}


def test_offline_the_table_freezes_and_a_move_is_clearly_refused(new_page: Any, server: str) -> None:
    page = new_page(390, 844)
    start_against_a_bot(page, server)
    page.context.set_offline(True)
    page.locator("[data-testid=conn]").wait_for()
    stock = page.locator("[data-testid=stock]")
    page.wait_for_function("() => document.querySelector('[data-testid=stock]').ariaDisabled === 'true'")
    assert page.locator(".players .presence.online").count() == 0, "presence dots cannot be known offline"
    stock.click(force=True)  # a person can still tap it
    page.locator(".toast.show", has_text="offline").wait_for()
    assert table_attr(page, "phase") == "draw" and table_attr(page, "pending") == "0"

    page.context.set_offline(False)
    page.locator("[data-testid=conn]").wait_for(state="detached")
    page.wait_for_function("() => document.querySelector('[data-testid=stock]').ariaDisabled !== 'true'")
    stock.click()
    page.wait_for_selector("[data-testid=table][data-phase='discard']")


OPEN_SCORES = """async () => {
  const { renderOverlay } = await import('/static/js/views/scores.js');
  const ctx = window.__ctx;
  const n = ctx.game.players.length;
  ctx.game = { ...ctx.game, round: 4,
    scores: [0, 1, 2].map((r) => Array.from({ length: n }, (_, s) => (s === r ? 0 : 10 + s + r))),
    results: [0, 1, 2].map((r) => ({ round: r + 1, wild_rank: String(r + 3), dealer: r, went_out: r })) };
  ctx.game.totals = ctx.game.players.map((p) => ctx.game.scores.reduce((sum, row) => sum + row[p.seat], 0));
  ctx.overlay = { kind: 'scores' };
  renderOverlay(document.getElementById('overlay'), ctx, { closeOverlay() {}, send() {}, navigate() {} });
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
}"""


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_eight_players_on_a_phone(new_page: Any, server: str, lang: str) -> None:
    page = new_page(390, 844, is_mobile=True, has_touch=True, device_scale_factor=2)
    render_table(page, server, lang, players=8, timer=True, game={"turn": 0})
    players = page.locator(".players").bounding_box()
    assert players["height"] <= 0.22 * 844, f"the player chips take {players['height']}px of 844"

    # The timer pill moves from chip to chip without moving anything else.
    page.locator("[data-testid=countdown]").wait_for()
    hand_top = page.locator(".hand").bounding_box()["y"]
    tops = []
    for turn in (3, 5, 7):
        page.evaluate("t => window.__update({ turn: t })", turn)
        assert page.locator(f"[data-testid=player-{turn}] [data-testid=countdown]").count() == 1
        tops.append(page.locator(".hand").bounding_box()["y"])
    page.evaluate("() => window.__update({}, { turn_deadline: null, server_time: null })")
    tops.append(page.locator(".hand").bounding_box()["y"])
    assert all(abs(top - hand_top) < 1 for top in tops), (hand_top, tops)

    # The score sheet scrolls sideways with the round column kept in view, and says there is more.
    page.evaluate(OPEN_SCORES)
    wrap = page.locator(".dialog .sheet-wrap")
    assert wrap.evaluate("w => w.scrollWidth > w.clientWidth + 20"), "eight columns should not be squeezed"
    first = page.locator(".dialog .score-sheet tbody th").first
    assert first.evaluate("e => getComputedStyle(e).position") == "sticky"
    assert page.locator("[data-testid=scroll-cue]").is_visible()
    wrap.evaluate("w => { w.scrollLeft = (document.dir === 'rtl' ? -1 : 1) * w.scrollWidth; }")
    page.wait_for_timeout(100)
    box, cell = wrap.bounding_box(), first.bounding_box()
    inside = box["x"] - 1 <= cell["x"] and cell["x"] + cell["width"] <= box["x"] + box["width"] + 1
    edge = cell["x"] - box["x"] if lang == "en" else box["x"] + box["width"] - cell["x"] - cell["width"]
    assert inside and edge < 8, f"the round column scrolled away: {cell} in {box}"
    assert not page.locator("[data-testid=scroll-cue]").is_visible(), "the cue stays after the end"
    if lang == "en":
        screenshot(page, "scores-8-phone.png")


def test_minor_things_players_tripped_on(new_page: Any, server: str) -> None:
    # A full table: the prompt offers to watch, it does not say you are watching before you choose.
    host = new_page(1024, 760)
    open_lobby(host, server, bot=True)
    link = host.locator("[data-testid=share-link]").input_value()
    guest = new_page(390, 844, is_mobile=True, has_touch=True)
    guest.goto(link)
    guest.locator("[data-testid=watch]").wait_for()
    assert "you are watching" not in guest.inner_text("#main").lower()

    # The code box's example is as long as a real code (8 characters).
    guest.goto(f"{server}/")
    placeholder = guest.locator("[data-testid=join-code]").get_attribute("placeholder") or ""
    assert len(placeholder.split()[-1]) == 8, placeholder

    # An unknown page is a page (404), not raw JSON; the API still answers JSON.
    response = guest.goto(f"{server}/no/such/page")
    assert response is not None and response.status == 404
    guest.locator("[data-testid=not-found]").wait_for()
    api = guest.request.get(f"{server}/api/no-such-thing")
    assert api.status == 404 and api.json()["code"] == "not_found"

    # On a phone the reorder hint does not mention keys; the house rules are visible during play.
    render_table(guest, server, game={"options": {"ace_high_low": True, "turn_timer": 30}})
    guest.evaluate("() => { localStorage.setItem('tt.group', 'off'); window.__update({}); }")
    guest.locator("[data-testid=group-toggle]").uncheck()
    hint = guest.locator(".hint.reorder").inner_text()
    assert "Shift" not in hint, hint
    rules = guest.locator("[data-testid=rules-in-play]")
    rules.locator("summary").click()
    assert "Ace high or low" in rules.inner_text()
    assert rules.locator("#opt-ace_high_low").is_checked()


LAZY = (
    "/static/js/views/replay.js",
    "/static/js/views/history.js",
    "/static/js/replay.js",
    "/static/js/views/standings.js",
)


def test_first_load_is_compressed_cached_preloaded_and_lazy(new_page: Any, server: str) -> None:
    page = new_page(390, 844)
    responses: list[Any] = []
    page.on("response", lambda response: responses.append(response))
    page.goto(f"{server}/")
    page.wait_for_selector("[data-testid=create]")
    page.wait_for_load_state("networkidle")
    scripts = {r.url.split(server, 1)[1]: r for r in responses if "/static/" in r.url}
    app = next((r for path, r in scripts.items() if path.startswith("/static/js/app.js")), None)
    assert app is not None, list(scripts)
    headers = app.all_headers()
    assert headers.get("content-encoding") == "gzip", headers
    assert "?v=" in app.url and "max-age=31536000" in headers.get("cache-control", ""), (app.url, headers)
    for path, response in scripts.items():
        assert "?v=" in path, f"{path}: its URL does not change when the file does"
        assert "immutable" in response.all_headers().get("cache-control", ""), path
    assert not [p for p in scripts if p.split("?")[0] in LAZY], "replay/history/standings loaded up front"
    preloads = page.locator("link[rel=modulepreload]").evaluate_all("els => els.map(e => e.href)")
    assert len(preloads) >= 8 and all("?v=" in href for href in preloads), preloads
    document = next(r for r in responses if r.url.rstrip("/") == server)
    assert "no-cache" in document.all_headers().get("cache-control", "")

    # The history page loads its code when it is opened.
    page.goto(f"{server}/r/ABCDEFGH/history")
    page.wait_for_selector("[data-testid=history]")
    assert any("/static/js/views/history.js?v=" in r.url for r in responses)


def test_a_program_in_a_seat_is_shown_as_a_program(new_page: Any, server: str) -> None:
    import httpx

    page = new_page(390, 844)
    code = open_lobby(page, server)
    joined = httpx.post(f"{server}/api/rooms/{code}/join", json={"name": "Robo", "program": True}).json()
    assert joined["seat"] == 1
    tag = page.wait_for_selector("[data-testid=program-tag]")
    assert tag.inner_text() == "program"
    assert page.locator("[data-testid=program-tag]").count() == 1  # Sara, a person, has none


def test_the_melds_of_whoever_went_out_are_laid_down_for_everyone(new_page: Any, server: str) -> None:
    """RULES.md, "Going out": the player lays the melds down; during the final turns everyone sees them."""
    page = new_page(390, 844)
    start_against_a_bot(page, server)
    bot_out = "() => (document.querySelector('[data-testid=laid-down]')?.textContent ?? '').includes('Bot 2')"
    for _ in range(300):  # do not go out ourselves: draw, throw a card, until the bot goes out
        page.wait_for_function(
            f"() => ({bot_out})() || document.querySelector('[data-testid=table]')?.dataset.myTurn === '1'",
            timeout=20_000,
        )
        if page.evaluate(bot_out):
            break
        if page.evaluate(CLOSE_ROUND_RESULTS):  # we went out (below): the next round's results are closed
            continue
        version = table_attr(page, "version")
        if table_attr(page, "phase") == "draw":
            page.click("[data-testid=stock]")
        else:  # a card that does not go out (if every card would, going out it is: the next round comes)
            keep = page.locator(".hand .card:not(.go-out-card)")
            (keep if keep.count() else page.locator(".hand .card")).first.click(position={"x": 8, "y": 20})
        page.wait_for_function(
            "v => document.querySelector('[data-testid=table]').dataset.version !== v", arg=version
        )
    laid = page.wait_for_selector("[data-testid=laid-down]")
    assert "Bot 2" in laid.inner_text()
    cards = page.locator("[data-testid=laid-down] .laid-melds .card").count()
    round_number = int(table_attr(page, "round") or "0")
    assert cards == round_number + 2, "every card of the hand but the one thrown is laid down"
    screenshot(page, "final-turns-laid-down.png")


def test_a_hint_marks_the_discard_that_leaves_the_fewest_points(new_page: Any, server: str) -> None:
    page = new_page(390, 844)
    tap = SocketTap(page)
    open_lobby(page, server, bot=True)
    page.check("#opt-hints")  # the host allows hints (off by default)
    page.wait_for_function("() => document.querySelector('#opt-hints')?.checked")
    tap.until_option(page, "hints", True)
    page.click("[data-testid=start]")
    page.wait_for_selector("[data-testid=table][data-my-turn='1'][data-phase='draw']")
    assert page.locator("[data-testid=hint]").count() == 0  # the hint is for the discard: draw first
    page.click("[data-testid=stock]")
    page.wait_for_selector("[data-testid=table][data-phase='discard']")
    page.click("[data-testid=hint]")
    hinted = page.locator(".hand .card.hinted")
    hinted.wait_for()
    card = hinted.get_attribute("data-card")
    toast = page.locator(".toast.show", has_text="Hint").inner_text()

    # The marked card is the solver's best discard for the hand the page holds.
    assert tap.last_state is not None
    game = tap.last_state["game"]
    assert game["options"]["hints"] is True
    options = Options.from_dict(game["options"])
    left = {}
    for choice in set(game["hand"]):
        rest = list(game["hand"])
        rest.remove(choice)
        left[choice] = min_penalty(rest, game["wild_rank"], options)
    assert card is not None and left[card] == min(left.values())
    if not game["can_go_out"]:
        assert f"{left[card]} points" in toast, toast
    screenshot(page, "hint-en.png")

    # In Persian the same hint reads in Persian, with Persian digits.
    page.click("[data-testid=lang]")
    page.click("[data-testid=hint]")
    page.locator(".toast.show", has_text="راهنمایی").wait_for()
    assert page.locator(".hand .card.hinted").get_attribute("data-card") == card
    screenshot(page, "hint-fa.png")

    # A move ends the hint; the next turn starts without one.
    click_card(page, page.locator(".hand .card.hinted"))
    page.wait_for_selector("[data-testid=table][data-phase='draw'], [data-testid=table][data-my-turn='0']")
    assert page.locator(".hand .card.hinted").count() == 0


def test_a_quick_reaction_rises_from_the_players_chip_and_stays_in_the_chat(
    new_page: Any, server: str
) -> None:
    page = new_page(390, 844)
    start_against_a_bot(page, server)
    buttons = page.locator("[data-testid=react]")
    assert buttons.count() == 6
    assert buttons.nth(1).get_attribute("aria-label") == "React with 👏"
    buttons.nth(1).click()
    bubble = page.locator("[data-testid=reaction-0]")
    bubble.wait_for()
    assert bubble.inner_text() == "👏"
    chip = page.locator("[data-testid=player-0]").bounding_box()
    spot = bubble.bounding_box()
    assert chip is not None and spot is not None
    assert chip["x"] <= spot["x"] + spot["width"] / 2 <= chip["x"] + chip["width"]  # above its own chip
    screenshot(page, "reaction-phone.png")
    page.locator("summary", has_text="Chat").click()
    assert page.locator("[data-testid=chat-log] li").last.inner_text() == "Sara 👏"
    bubble.wait_for(state="detached", timeout=5000)  # it goes by itself

    # A spectator sees reactions but has no buttons to send one.
    watcher = new_page(390, 844)
    watcher.goto(page.url)
    watcher.locator("[data-testid=watch]").click()
    watcher.wait_for_selector("[data-testid=table]")
    assert watcher.locator("[data-testid=react]:visible").count() == 0
    buttons.nth(2).click()
    watcher.locator("[data-testid=reaction-0]").wait_for()


NOTICE_STUBS = (Path(__file__).parent / "notice_stubs.js").read_text(encoding="utf-8")


def my_next_turn(page: Any) -> None:
    """Wait for the person's next draw; the bot may go out first (round one has three cards): the round's
    results are closed then, as a player would."""
    my_draw = "[data-testid=table][data-my-turn='1'][data-phase='draw']"
    page.wait_for_selector(f"{my_draw}, [data-testid=score-sheet]")
    if page.locator("[data-testid=score-sheet]").count():
        page.click("[data-testid=continue]")
    page.wait_for_selector(my_draw)


def test_your_turn_is_noticed_only_when_asked(new_page: Any, server: str) -> None:
    page = new_page(390, 844)
    page.add_init_script(NOTICE_STUBS)
    start_against_a_bot(page, server)
    bell = page.locator("[data-testid=notify]")
    assert bell.get_attribute("aria-pressed") == "false"
    take_turn(page)
    take_turn(page)
    my_next_turn(page)
    assert page.evaluate("[window.__notes.length, window.__buzz.length, window.__chimes]") == [0, 0, 0]  # off

    bell.click()  # on: asks for permission, and plays the chime once so the player knows it
    page.wait_for_function("window.Notification.permission === 'granted'")
    assert bell.get_attribute("aria-pressed") == "true"
    assert page.evaluate("window.__chimes") == 1
    page.evaluate("window.__hidden = true")  # the player switches to another tab
    take_turn(page)
    take_turn(page)
    page.wait_for_selector("[data-testid=table][data-my-turn='1'][data-phase='draw']")
    page.wait_for_function("window.__notes.length === 1")
    title, body = page.evaluate("window.__notes[0]")
    assert title == "Your turn" and page.url.rsplit("/", 1)[1] in body
    assert page.evaluate("[window.__buzz.length, window.__chimes]") == [1, 2]

    # Remembered on reload; opening the table on your turn is not news; in Persian the notice is Persian.
    page.evaluate("localStorage.setItem('tt.lang', 'fa')")
    page.reload()
    page.wait_for_selector("[data-testid=table][data-my-turn='1']")
    assert page.locator("[data-testid=notify]").get_attribute("aria-pressed") == "true"
    page.evaluate("window.__hidden = true; window.Notification.permission = 'granted'")
    take_turn(page)
    take_turn(page)
    page.wait_for_selector("[data-testid=table][data-my-turn='1'][data-phase='draw']")
    page.wait_for_function("window.__notes.length === 1")
    assert page.evaluate("window.__notes[0][0]") == "نوبت شماست"


def test_confirm_discards_picks_first_and_plays_on_the_second_tap(new_page: Any, server: str) -> None:
    page = new_page(390, 844, is_mobile=True, has_touch=True)
    start_against_a_bot(page, server)
    page.click("[data-testid=stock]")
    page.wait_for_selector("[data-testid=table][data-phase='discard']")
    page.locator("[data-testid=confirm-toggle]").check()
    version = table_attr(page, "version")
    cards = page.locator(".hand .card")
    first, second = cards.nth(0).get_attribute("data-card"), cards.nth(1).get_attribute("data-card")
    cards.nth(0).tap()
    page.locator(".hand .card.selected").wait_for()
    page.wait_for_timeout(300)
    assert table_attr(page, "version") == version  # a tap only picks the card
    assert page.locator(".hand .card.selected").get_attribute("data-card") == first
    cards.nth(1).tap()  # another card: the pick moves to it
    assert page.locator(".hand .card.selected").get_attribute("data-card") == second
    button = page.locator("[data-testid=confirm-discard]")
    assert second is not None and second[:-1] in button.inner_text()
    screenshot(page, "confirm-discard-phone.png")
    button.tap()
    page.wait_for_function(VERSION_CHANGED, arg=version)
    assert page.locator(".hand .card.selected").count() == 0
    my_next_turn(page)  # the bot may go out on its turn first (three cards in round one)
    # Remembered, and in Persian the button speaks Persian; a second tap on the picked card plays it too.
    page.click("[data-testid=lang]")
    page.wait_for_selector("[data-testid=table][data-my-turn='1'][data-phase='draw']")
    assert page.locator("[data-testid=confirm-toggle]").is_checked()
    page.click("[data-testid=stock]")
    page.wait_for_selector("[data-testid=table][data-phase='discard']")
    version = table_attr(page, "version")
    page.locator(".hand .card").first.tap()
    # "Discard 5♠", or "Go out with 5♠" when that card lets this hand go out (the deal decides), in Persian.
    label = page.locator("[data-testid=confirm-discard]").inner_text()
    assert label.startswith(("دور انداختن", "بیرون رفتن با")), label
    page.locator(".hand .card.selected").tap()
    page.wait_for_function(VERSION_CHANGED, arg=version)


# Notes each card that flies across the table (the motion layer adds them to the page for a moment).
WATCH_FLIGHTS = """
window.__flights = [];
new MutationObserver((records) => {
  for (const record of records) for (const node of record.addedNodes) {
    if (node.classList?.contains('flying-card')) window.__flights.push(node.dataset.card || 'back');
  }
}).observe(document, { childList: true, subtree: true });
"""


def test_moves_fly_between_piles_and_hands_and_the_round_can_be_read_back(new_page: Any, server: str) -> None:
    page = new_page(390, 844)
    page.add_init_script(WATCH_FLIGHTS)
    start_against_a_bot(page, server)
    before = page.evaluate("window.__flights.length")
    take_turn(page)  # my draw from the stock: I see the card fly to my hand
    drawn = page.locator(".hand .card.drawn").get_attribute("data-card")
    page.wait_for_function("n => window.__flights.length > n", arg=before)
    assert drawn in page.evaluate("window.__flights")
    take_turn(page)  # my discard flies to the pile, unless it ended the round (the results cover the table)
    mine_flew = "n => window.__flights.length >= n + 2 || document.querySelector('[data-testid=score-sheet]')"
    page.wait_for_function(mine_flew, arg=before)
    if not page.locator("[data-testid=score-sheet]").count():  # then the bot's draw flies to its chip
        page.wait_for_function("n => window.__flights.length >= n + 3", arg=before)

    # The whole round's moves fold away under the last two; opened, they stay open as moves come. (Play
    # on, past a round's end if one comes, until this round has three moves and it is my turn.)
    feed = page.locator("[data-testid=round-feed]")
    for _ in range(20):
        page.wait_for_selector(
            "[data-testid=table][data-my-turn='1'][data-phase='draw'], [data-testid=score-sheet]"
        )
        if page.locator("[data-testid=score-sheet]").count():
            page.click("[data-testid=continue]")
        elif feed.locator("li").count() >= 3:
            break
        else:
            take_turn(page)
            take_turn(page)
    count = feed.locator("li").count()
    assert count >= 3 and f"All moves of this round ({count})" in feed.locator("summary").inner_text()
    feed.locator("summary").click()
    assert "Bot 2" in feed.inner_text()
    take_turn(page)
    page.wait_for_function(
        "n => document.querySelectorAll('[data-testid=round-feed] li').length === n", arg=count + 1
    )
    assert page.locator("[data-testid=round-feed]").get_attribute("open") is not None
    page.click("[data-testid=lang]")
    assert "همه‌ی حرکت‌های این دست" in page.locator("[data-testid=round-feed] summary").inner_text()
    screenshot(page, "round-feed-fa.png")


def test_nothing_flies_for_those_who_ask_for_reduced_motion(new_page: Any, server: str) -> None:
    page = new_page(390, 844)
    page.emulate_media(reduced_motion="reduce")
    page.add_init_script(WATCH_FLIGHTS)
    start_against_a_bot(page, server)
    take_turn(page)
    take_turn(page)
    page.wait_for_selector("[data-testid=table][data-my-turn='1'][data-phase='draw']")
    assert page.evaluate("window.__flights") == []


def test_a_room_link_loads_only_what_its_join_form_needs_first(new_page: Any, server: str) -> None:
    """The room's info is asked for alongside the modules (a preload app.js's fetch reuses), and the table,
    hand, score and chat code come after the form, in the background."""
    import httpx

    code = httpx.post(f"{server}/api/rooms", json={"name": "Sara", "seats": 3}).json()["code"]
    page = new_page(390, 844)
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url.split(server, 1)[-1]))
    page.goto(f"{server}/r/{code}")
    page.wait_for_selector("[data-testid=join-name]")
    page.wait_for_load_state("networkidle")
    preload = page.locator(f'link[rel=preload][as=fetch][href="/api/rooms/{code}"]')
    assert preload.count() == 1
    assert [r for r in requests if r.startswith("/api/")] == [f"/api/rooms/{code}"], "one request, reused"
    preloads = page.locator("link[rel=modulepreload]").evaluate_all("els => els.map(e => e.href)")
    later = ("views/table.js", "views/hand.js", "views/scores.js", "views/chat.js", "views/home.js")
    assert not [href for href in preloads if any(name in href for name in later)], preloads
    assert any("views/join.js" in href for href in preloads)
    # ...and they do come once the page has loaded, so a game starts without waiting for them.
    assert any(r.startswith("/static/js/views/table.js?v=") for r in requests), requests


@pytest.mark.parametrize(("lang", "width", "height"), [("en", 390, 844), ("fa", 1280, 800)])
def test_a_watcher_reads_the_chat_and_gets_no_send_box(
    new_page: Any, server: str, lang: str, width: int, height: int
) -> None:
    """Spectators may not chat (the server answers not_seated): they get no box to type into, and a line
    that says why, but they read what the players say."""
    page = new_page(1280, 800)
    start_against_a_bot(page, server)
    watcher = new_page(width, height, lang=lang)
    watcher.goto(page.url)
    watcher.locator("[data-testid=watch]").click()
    watcher.wait_for_selector("[data-testid=table]")
    details = watcher.locator(".chat-box")
    if details.get_attribute("open") is None:
        details.locator("summary").click()
    page.fill("[data-testid=chat-input]", "salam")
    page.press("[data-testid=chat-input]", "Enter")
    watcher.locator("[data-testid=chat-log] li", has_text="salam").wait_for()
    assert watcher.locator("[data-testid=chat-input]").is_hidden()
    assert watcher.locator(".chat-form button").is_hidden()
    note = watcher.locator("[data-testid=chat-watching]")
    assert note.is_visible()
    assert ("only the players" if lang == "en" else "فقط بازیکنان") in note.inner_text()
    # The player has the box, and no such note.
    assert page.locator("[data-testid=chat-input]").is_visible()
    assert page.locator("[data-testid=chat-watching]").is_hidden()
    watcher.evaluate("document.querySelector('.chat-box').scrollIntoView()")
    screenshot(watcher, f"chat-watcher-{lang}.png")


def open_chat(page: Any) -> None:
    details = page.locator(".chat-box")
    if details.get_attribute("open") is None:
        details.locator("summary").click()


@pytest.mark.parametrize(("lang", "width", "height"), [("en", 390, 844), ("fa", 1280, 800)])
def test_the_chat_survives_a_reload_and_greets_a_newcomer(
    new_page: Any, server: str, lang: str, width: int, height: int
) -> None:
    """The table keeps its recent chat: a reloaded page, and someone who comes to watch later, read it."""
    page = new_page(width, height, lang=lang)
    start_against_a_bot(page, server)
    open_chat(page)
    for text in ("salam", "سلام به همه"):
        page.fill("[data-testid=chat-input]", text)
        page.press("[data-testid=chat-input]", "Enter")
        page.locator("[data-testid=chat-log] li", has_text=text).wait_for()
    page.reload()
    page.wait_for_selector("[data-testid=table]")
    open_chat(page)
    log = page.locator("[data-testid=chat-log] li")
    log.nth(1).wait_for()
    assert log.all_inner_texts() == ["Sara salam", "Sara سلام به همه"]
    screenshot(page, f"chat-after-reload-{lang}.png")
    watcher = new_page(390, 844, lang=lang)
    watcher.goto(page.url)
    watcher.locator("[data-testid=watch]").click()
    watcher.wait_for_selector("[data-testid=table]")
    open_chat(watcher)
    watcher.locator("[data-testid=chat-log] li").nth(1).wait_for()
    assert watcher.locator("[data-testid=chat-log] li").all_inner_texts() == [
        "Sara salam",
        "Sara سلام به همه",
    ]


def feed_count(page: Any) -> int:
    return int(page.evaluate("document.querySelectorAll('[data-testid=round-feed] li').length"))


@pytest.mark.parametrize(("lang", "width", "height"), [("fa", 390, 844), ("en", 1280, 800)])
def test_after_reconnecting_the_move_feed_shows_what_happened_meanwhile(
    new_page: Any, server: str, lang: str, width: int, height: int
) -> None:
    """A watcher whose connection drops while a move is made sees that move in the round's feed once back,
    as does one who only now opens the table: the welcome brings the round's moves so far."""
    page = new_page(1280, 800)
    start_against_a_bot(page, server)
    # Play on (past a round's end if one comes) until this round has three moves and it is my turn to draw.
    for _ in range(20):
        page.wait_for_selector(
            "[data-testid=table][data-my-turn='1'][data-phase='draw'], [data-testid=score-sheet]"
        )
        if page.locator("[data-testid=score-sheet]").count():
            page.click("[data-testid=continue]")
        elif feed_count(page) >= 3:
            break
        else:
            take_turn(page)
            take_turn(page)
    before = feed_count(page)
    assert before >= 3
    watcher = new_page(width, height, lang=lang)
    watcher.goto(page.url)
    watcher.locator("[data-testid=watch]").click()
    watcher.wait_for_selector("[data-testid=table]")
    assert feed_count(watcher) == before, "a newcomer is told the round's moves so far"

    watcher.context.set_offline(True)
    watcher.locator("[data-testid=conn]").wait_for()
    take_turn(page)  # a draw, made while the watcher is away
    assert feed_count(page) == before + 1
    watcher.context.set_offline(False)
    watcher.locator("[data-testid=conn]").wait_for(state="detached")
    watcher.wait_for_function(
        "n => document.querySelectorAll('[data-testid=round-feed] li').length === n", arg=before + 1
    )
    watcher.locator("[data-testid=round-feed] summary").click()
    last = watcher.locator("[data-testid=round-feed] li").last.inner_text()
    assert ("Sara drew from the stock" if lang == "en" else "Sara از دسته برداشت") in last
    watcher.evaluate("document.querySelector('[data-testid=round-feed]').scrollIntoView()")  # drawn anew
    screenshot(watcher, f"feed-after-reconnect-{lang}.png")


@pytest.mark.parametrize(("lang", "width", "height"), [("en", 390, 844), ("fa", 1280, 800)])
def test_the_rules_in_play_say_when_they_can_be_changed(
    new_page: Any, server: str, lang: str, width: int, height: int
) -> None:
    """Mid-game the house rules (hints among them) are greyed out: the box says why, and when they can be
    changed, and each control is described by that."""
    page = new_page(width, height, lang=lang)
    start_against_a_bot(page, server)
    page.click("[data-testid=rules-in-play] summary")
    note = page.locator("[data-testid=rules-locked]")
    assert note.is_visible()
    assert (
        "in the lobby before the next game" if lang == "en" else "پیش از بازی بعد، در لابی"
    ) in note.inner_text()
    hints = page.locator("[data-testid=rules-in-play] #opt-hints")
    assert hints.is_disabled()
    assert "rules-locked" in (hints.get_attribute("aria-describedby") or "").split()
    note.scroll_into_view_if_needed()
    screenshot(page, f"rules-locked-{lang}.png")
