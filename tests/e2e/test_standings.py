"""The standings in Chromium, on a server of their own (a fresh database: every record on it is one these
tests made). Finished games are seeded through the real server (people playing over the WebSocket from
Python, with bots and a rematch); then the boards, a player's record, its chart and its links are checked
against the REST answers and the tables' own history, in English and Persian at phone and laptop sizes; the
links from home, the game-over dialog and the live score sheet; and the lobby's practice switch, whose seat
the standings then leave out."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from tests.api.test_history import quick_move
from tests.api.wsclient import Client, create_room, join_room

from .conftest import open_lobby, screenshot, serving

pytestmark = pytest.mark.e2e

# Games as fast as the machine plays them: no pause between rounds, no limit a quick player would meet.
SETTINGS = {
    "MAX_MESSAGES_PER_SECOND": "1000",
    "MAX_CONNECTS_PER_SECOND": "100",
    "MAX_RECORDS_PER_MINUTE": "1000",
    "MAX_STANDINGS_PER_MINUTE": "1000",
    "ROUND_BREAK_SECONDS": "0",
    "TRUSTED_PROXIES": "127.0.0.1",  # the seeded friends join from homes of their own (``home``)
}
SIZES = {"phone": (390, 844), "laptop": (1280, 900)}
PERSIAN = str.maketrans("0123456789.", "۰۱۲۳۴۵۶۷۸۹٫")


@pytest.fixture(scope="module")
def standings_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(Path(tmp_path_factory.mktemp("standings-server")), **SETTINGS) as base:
        yield base


def home(name: str) -> str:
    """Each seeded person's own address: friends at a table from one address fill no public record."""
    return f"198.51.100.{sum(name.encode()) % 250 + 1}"


async def play_until_over(client: Client, game_id: str) -> None:
    """Play this client's seat (reading only its own view) until game ``game_id`` is over."""
    while True:
        state = client.state
        view = state["game"] if state else None
        if view is not None and state is not None and state["room"]["game_id"] == game_id:
            if view["phase"] == "game_over":
                return
            if view["turn"] == view["seat"] and view["legal"]:
                answer = await client.act(quick_move(view), version=state["version"])
                if answer["type"] == "ack":
                    await client.wait_version(answer["version"])
                else:  # a state on its way made the move stale: look again once it is here
                    await asyncio.sleep(0.05)
                continue
        await client.next("state", timeout=30)


async def play_table(
    server: str,
    names: list[str],
    *,
    bots: int = 0,
    games: int = 1,
    practice: tuple[str, ...] = (),
    tokens: list[str] | None = None,
    code: str | None = None,
) -> dict[str, Any]:
    """A table of the people ``names`` (the first hosts) and ``bots`` bots, played to the end ``games``
    times (each after the first a rematch); ``practice``: names that play for practice. With ``code`` and
    ``tokens``: the table is already open (its lobby), its seats held by these tokens."""
    if code is None:
        created = await create_room(
            server, names[0], seats=len(names) + bots, bots=["normal"] * bots, address=home(names[0])
        )
        code = str(created["code"])
        tokens = [created["token"]] + [
            (await join_room(server, code, name, address=home(name)))["token"] for name in names[1:]
        ]
    assert tokens is not None
    clients = []
    for token in tokens:
        client = await Client.connect(server, code)
        await client.hello(token)
        clients.append(client)
    for name in practice:
        player = clients[names.index(name)]
        await player.send({"type": "practice", "on": True})
        await player.until(
            lambda m, name=name: (
                m["type"] in ("state", "presence")
                and any(s["name"] == name and s.get("practice") for s in m["room"]["seats"])
            )
        )
    played: list[str] = []
    for number in range(games):
        await clients[0].send({"type": "start"} if number == 0 else {"type": "rematch"})
        state = await clients[0].until(
            lambda m: (
                m["type"] == "state"
                and m["game"] is not None
                and m["game"]["phase"] != "game_over"
                and m["room"]["game_id"] not in played
            ),
            timeout=30,
        )
        game_id = str(state["room"]["game_id"])
        await asyncio.gather(*(play_until_over(client, game_id) for client in clients))
        played.append(game_id)
    for client in clients:
        await client.close()
    return {"code": code, "games": played, "tokens": tokens}


def in_thread(coroutine: Any) -> Any:
    """Run ``coroutine`` in a thread of its own: Playwright's sync API holds this thread's event loop."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result(timeout=300)


def rest(server: str, path: str, **params: Any) -> Any:
    response = httpx.get(f"{server}{path}", params=params, timeout=30)
    assert response.status_code == 200, (path, response.status_code, response.text)
    return response.json()


async def seed(server: str) -> list[dict[str, Any]]:
    return [
        await play_table(server, ["Sara", "Omid"], bots=1, games=2),  # a game and its rematch
        await play_table(server, ["Sara"], bots=1),
        await play_table(server, ["Omid", "Leila", "Sara"]),
        await play_table(server, ["Kian"], bots=1, games=6),  # past a page of games, whatever a row is
    ]


@pytest.fixture(scope="module")
def seeded(standings_server: str) -> list[dict[str, Any]]:
    return in_thread(seed(standings_server))  # type: ignore[no-any-return]


def people_totals(server: str, tables: list[dict[str, Any]]) -> list[tuple[int, str]]:
    """Every person's final total in every seeded game, from the tables' own history (not the standings)."""
    found = []
    for table in tables:
        for game in rest(server, f"/api/rooms/{table['code']}/games", limit=50)["items"]:
            assert game["status"] == "finished"
            found += [(game["totals"][p["seat"]], p["name"]) for p in game["players"] if not p["bot"]]
    return found


def shown(value: float, lang: str, digits: int = 2) -> str:
    """A number as the page writes it (Intl.NumberFormat): at most ``digits`` decimals, halves rounded up
    from the number's exact value; Persian digits and separator in fa."""
    exact = Decimal(value).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)
    text = f"{exact:f}".rstrip("0").rstrip(".") if digits else f"{exact:f}"
    return text.translate(PERSIAN) if lang == "fa" else text


def texts(page: Any, selector: str) -> list[str]:
    return [t.strip() for t in page.locator(selector).all_inner_texts()]


@pytest.mark.parametrize("lang", ["en", "fa"])
@pytest.mark.parametrize("size", list(SIZES))
def test_boards_and_a_players_record_show_the_servers_figures(
    new_page: Any, standings_server: str, seeded: list[dict[str, Any]], lang: str, size: str
) -> None:
    server = standings_server
    page = new_page(*SIZES[size], lang)
    page.goto(f"{server}/standings")
    page.wait_for_selector("[data-testid=players-board]")
    assert page.get_attribute("html", "dir") == ("rtl" if lang == "fa" else "ltr")
    assert page.locator("[data-testid=public-note]").is_visible()

    # Most wins, then best average: the rows are the server's, in its order, with its figures.
    for board, by in (("wins", "wins"), ("average", "average")):
        page.click(f"[data-testid=board-{board}]")
        page.wait_for_selector(f"[data-testid=standings][data-board={board}] [data-testid=players-board]")
        answer = rest(server, "/api/leaderboard", by=by, limit=10, offset=0)
        assert answer["total"] == 4  # Sara, Omid, Leila, Kian: bots are never counted
        assert texts(page, "[data-testid=board-row] .player-link") == [row["name"] for row in answer["items"]]
        rows = answer["items"]
        assert texts(page, "[data-testid=cell-wins]") == [shown(row["wins"], lang) for row in rows]
        assert texts(page, "[data-testid=cell-average]") == [
            shown(row["average_total"], lang, 1) for row in answer["items"]
        ]
        screenshot(page, f"standings-{board}-{lang}-{size}.png", full_page=True)

    # The Hall of Fame and of Shame: the lowest and highest totals of the tables' own history.
    totals = sorted(people_totals(server, seeded))
    assert len(totals) == 2 * 2 + 1 + 3 + 6  # the people of every seeded game
    for board, extreme in (("fame", totals[0][0]), ("shame", totals[-1][0])):
        page.click(f"[data-testid=board-{board}]")
        page.wait_for_selector(f"[data-testid=standings][data-board={board}] [data-testid=games-board]")
        order = "best" if board == "fame" else "worst"
        answer = rest(server, "/api/leaderboard/games", order=order, limit=10)
        column = texts(page, "[data-testid=cell-total]")
        assert column == [shown(row["total"], lang) for row in answer["items"]]
        assert column[0] == shown(extreme, lang)
        # Every game opens by its id; a page at a time.
        assert [
            page.locator(f"[data-testid=game-link-{row['game']}]").first.get_attribute("href")
            for row in answer["items"]
        ] == [f"/games/{row['game']}" for row in answer["items"]]
        screenshot(page, f"standings-{board}-{lang}-{size}.png", full_page=True)
        assert answer["total"] > 10
        page.click("[data-testid=board-next]")
        page.wait_for_selector("[data-testid=standings][data-offset='10']")
        second = rest(server, "/api/leaderboard/games", order=order, limit=10, offset=10)["items"]
        assert texts(page, "[data-testid=cell-total]") == [shown(row["total"], lang) for row in second]
        assert texts(page, "[data-testid=board-row] .rank")[0] == shown(11, lang)
        page.click("[data-testid=board-prev]")
        page.wait_for_selector("[data-testid=standings][data-offset='0']")
        answer = rest(server, "/api/leaderboard/games", order=order, limit=10)

    # A name on the board opens that player's record.
    top = answer["items"][0]["name"]
    page.locator("[data-testid=board-row] .player-link").first.click()
    page.wait_for_selector("[data-testid=fig-games]")
    assert page.url == f"{server}/standings/{quote(top)}"
    assert page.locator("[data-testid=player-name]").inner_text() == top
    top_record = rest(server, f"/api/players/{quote(top)}")
    assert page.locator("[data-testid=fig-games]").inner_text() == shown(top_record["games"], lang)

    # Sara's record (four games at three tables), figure by figure.
    page.goto(f"{server}/standings/Sara")
    page.wait_for_selector("[data-testid=chart]")
    record = rest(server, "/api/players/Sara")
    assert record["games"] == 4
    assert page.locator("[data-testid=player-name]").inner_text() == record["name"]
    assert page.locator("[data-testid=fig-games]").inner_text() == shown(record["games"], lang)
    assert page.locator("[data-testid=fig-wins]").inner_text() == shown(record["wins"], lang)
    assert page.locator("[data-testid=fig-average]").inner_text() == shown(record["average_total"], lang, 1)
    assert page.locator("[data-testid=fig-out-first]").inner_text() == shown(record["rounds_out_first"], lang)
    if lang == "fa":
        assert re.fullmatch("[۰-۹]+", page.locator("[data-testid=fig-games]").inner_text())
    # The chart: the recent totals, oldest first, one point each.
    recent = record["recent"]
    chart = page.locator("[data-testid=chart-svg]")
    assert chart.get_attribute("data-values") == ",".join(str(g["total"]) for g in reversed(recent))
    assert chart.locator("circle").count() == len(recent)
    points = chart.locator("circle").evaluate_all("els => els.map(e => Number(e.getAttribute('cx')))")
    # Time runs with the reading: left to right in English, right to left in Persian.
    assert points == sorted(points, reverse=(lang == "fa"))
    assert texts(page, "[data-testid=recent-list] > li") and page.locator(
        "[data-testid=recent-list] > li"
    ).count() == len(recent)
    screenshot(page, f"standings-player-{lang}-{size}.png", full_page=True)

    # Its best game opens as a replay by the game's id alone, and leads back to the standings.
    best = record["best"]["game"]
    page.click(f"[data-testid=best-game] [data-testid=game-link-{best}]")
    page.wait_for_selector("[data-testid=replay][data-index]")
    assert page.url == f"{server}/games/{best}"
    screenshot(page, f"standings-replay-{lang}-{size}.png")
    page.click("[data-testid=back-to-standings]")
    page.wait_for_selector("[data-testid=standings][data-board=wins] [data-testid=players-board]")
    assert page.url == f"{server}/standings"


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_a_name_with_no_counted_game_says_so_and_offers_the_search(
    new_page: Any, standings_server: str, seeded: list[dict[str, Any]], lang: str
) -> None:
    page = new_page(390, 844, lang)
    page.goto(f"{standings_server}/standings/{quote('Nobody Here')}")
    page.wait_for_selector("[data-testid=player-missing]")
    assert "Nobody Here" in page.locator("[data-testid=player-missing]").inner_text()
    screenshot(page, f"standings-missing-{lang}.png", full_page=True)
    # The search opens a record; look-alike spellings reach the same one (the server folds them).
    page.fill("[data-testid=find-player]", "sara")
    page.click("[data-testid=find-button]")
    page.wait_for_selector("[data-testid=fig-games]")
    assert page.locator("[data-testid=player-name]").inner_text() == "Sara"
    assert page.url == f"{standings_server}/standings/sara"
    page.goto(f"{standings_server}/standings/{quote('Ѕаrа')}")  # Cyrillic S and a's
    page.wait_for_selector("[data-testid=fig-games]")
    assert page.locator("[data-testid=player-name]").inner_text() == "Sara"


def test_links_from_home_and_the_game_over_dialog(
    new_page: Any, standings_server: str, seeded: list[dict[str, Any]]
) -> None:
    server = standings_server
    page = new_page(390, 844)
    page.goto(f"{server}/")
    page.click("[data-testid=standings-link]")
    page.wait_for_selector("[data-testid=players-board]")
    assert page.url == f"{server}/standings"

    # The host of the first table comes back to it after its rematch ended: the game-over dialog.
    table = seeded[0]
    key = f"tt.token.{table['code']}"
    page.evaluate("([key, token]) => localStorage.setItem(key, token)", [key, table["tokens"][0]])
    page.goto(f"{server}/r/{table['code']}")
    dialog = page.locator("dialog")
    dialog.locator("[data-testid=winner]").wait_for()
    screenshot(page, "standings-game-over-en-phone.png")
    # Each person's name over its column opens their standings here (the game is over); bots have none.
    assert dialog.locator("[data-testid^=standings-of-]").count() == 2
    link = dialog.locator("[data-testid^=standings-of-]", has_text="Omid")
    assert link.get_attribute("target") is None
    link.click()
    page.wait_for_selector("[data-testid=fig-games]")
    assert page.url == f"{server}/standings/Omid"
    page.go_back()
    page.locator("dialog [data-testid=standings-link]").click()
    page.wait_for_selector("[data-testid=players-board]")
    assert page.url == f"{server}/standings"


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_the_practice_switch_is_shown_to_everyone_and_leaves_the_seat_out_of_the_standings(
    new_page: Any, standings_server: str, lang: str
) -> None:
    server = standings_server
    names = {"en": ("Nima", "Parisa"), "fa": ("نیما", "پریسا")}[lang]
    # Two people at two homes: a practice seat from the guest's own address would leave the guest's game out
    # of the public records (it could be their own, playing to lose).
    host = new_page(390, 844, lang, extra_http_headers={"X-Forwarded-For": home(names[0])})
    code = open_lobby(host, server, names[0], seats=3, bot=True)
    assert host.locator("[data-testid=lobby] [data-testid=standings-link]").is_visible()
    guest = new_page(1280, 900, lang, extra_http_headers={"X-Forwarded-For": home(names[1])})
    guest.goto(f"{server}/r/{code}")
    guest.fill("[data-testid=join-name]", names[1])
    guest.click("[data-testid=join-seat]")
    guest.wait_for_selector("[data-testid=lobby]")

    switch = host.locator("[data-testid=practice]")
    assert not switch.is_checked()
    assert guest.locator("[data-testid=practice-0]").count() == 0
    switch.click()
    guest.wait_for_selector("[data-testid=practice-0]")
    host.wait_for_selector("[data-testid=practice-0]")
    assert host.locator("[data-testid=practice]").is_checked()
    assert (
        guest.locator("[data-testid=practice-2]").count() == 0
        and not guest.locator("[data-testid=practice]").is_checked()
    )
    screenshot(host, f"standings-practice-lobby-{lang}-phone.png", full_page=True)
    screenshot(guest, f"standings-practice-lobby-{lang}-laptop.png")
    # Off, and on again: the tag follows the switch.
    host.locator("[data-testid=practice]").click()
    guest.wait_for_selector("[data-testid=practice-0]", state="detached")
    host.locator("[data-testid=practice]").click()
    guest.wait_for_selector("[data-testid=practice-0]")

    host.click("[data-testid=start]")
    host.wait_for_selector("[data-testid=scores]")
    assert host.locator("[data-testid=practice]").count() == 0  # fixed once the game starts
    # While the game is played, a name in the score sheet opens its standings in another tab.
    host.click("[data-testid=scores]")
    name_link = host.locator("dialog [data-testid^=standings-of-]", has_text=names[1])
    assert name_link.get_attribute("target") == "_blank"
    assert name_link.get_attribute("href") == f"/standings/{quote(names[1])}"
    host.keyboard.press("Escape")

    # The people leave their tabs; the same seats (their tokens) play the game to its end from Python.
    tokens = [p.evaluate("k => localStorage.getItem(k)", f"tt.token.{code}") for p in (host, guest)]
    host.close()
    guest.close()
    table = in_thread(play_until_all_over(server, code, tokens))
    assert table
    missing = httpx.get(f"{server}/api/players/{quote(names[0])}", timeout=30)
    assert missing.status_code == 404
    counted = rest(server, f"/api/players/{quote(names[1])}")
    assert counted["games"] == 1

    page = new_page(390, 844, lang)
    page.goto(f"{server}/standings/{quote(names[0])}")
    page.wait_for_selector("[data-testid=player-missing]")
    page.goto(f"{server}/standings/{quote(names[1])}")
    page.wait_for_selector("[data-testid=fig-games]")
    assert page.locator("[data-testid=fig-games]").inner_text() == shown(1, lang)
    screenshot(page, f"standings-one-game-{lang}-phone.png", full_page=True)


async def play_until_all_over(server: str, code: str, tokens: list[str]) -> bool:
    """The game in play at ``code``, played to its end by the seats these tokens hold."""
    clients = []
    for token in tokens:
        client = await Client.connect(server, code)
        await client.hello(token)
        clients.append(client)
    assert clients[0].state is not None
    game_id = str(clients[0].state["room"]["game_id"])
    await asyncio.gather(*(play_until_over(client, game_id) for client in clients))
    for client in clients:
        await client.close()
    return True


RATING_SIZES = {"phone": (375, 812), "laptop": (1280, 900)}


def shown_signed(value: float, lang: str) -> str:
    """A rating as the page writes it: one decimal, rounded half away from zero from the number's shortest
    decimal form (as Chromium's Intl.NumberFormat does: 4.85 -> 4.9), Intl's minus (en "-"; fa "\u200e\u2212",
    a left-to-right mark and the minus sign) before a negative one's digits."""
    exact = Decimal(repr(abs(value))).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)
    digits = f"{exact:f}".rstrip("0").rstrip(".")
    if lang == "fa":
        digits = digits.translate(PERSIAN)
    if value >= 0 or exact == 0:
        return digits
    return ("-" if lang == "en" else "\u200e\u2212") + digits


@pytest.mark.parametrize("lang", ["en", "fa"])
@pytest.mark.parametrize("size", list(RATING_SIZES))
def test_the_rating_on_a_record_and_the_board_by_rating(
    new_page: Any, standings_server: str, seeded: list[dict[str, Any]], lang: str, size: str
) -> None:
    """Sara's games against people (two with Omid, one with Omid and Leila) rated her; her game against a bot
    did not, and Kian (bots only) has no rating: the record shows the server's rating, provisional (under 5
    rated games), with its line over the rated games; the board by rating lists the rated names, highest
    first; axe finds nothing serious on either."""
    from .test_a11y import assert_accessible

    server = standings_server
    page = new_page(*RATING_SIZES[size], lang, reduced_motion="reduce")
    record = rest(server, "/api/players/Sara")
    rating = record["rating"]
    assert rating["games"] == 3 and rating["provisional"] and record["games"] == 4
    page.goto(f"{server}/standings/Sara")
    page.wait_for_selector("[data-testid=rating-chart]")
    assert page.locator("[data-testid=rating-value]").inner_text() == shown_signed(rating["ordinal"], lang)
    assert page.locator("[data-testid=rating-sigma]").inner_text() == "± " + shown_signed(
        rating["sigma"], lang
    )
    assert page.locator("[data-testid=rating-provisional]").is_visible()
    history = record["rating_history"]
    assert len(history) == 3 and history[0]["ordinal"] == rating["ordinal"]
    chart = page.locator("[data-testid=rating-chart-svg]")
    assert chart.get_attribute("data-values") == ",".join(
        str(int(p["ordinal"])) if p["ordinal"] == int(p["ordinal"]) else str(p["ordinal"])
        for p in reversed(history)
    )
    assert chart.get_attribute("role") == "img"
    label = chart.get_attribute("aria-label")
    assert label and all(shown_signed(p["ordinal"], lang) in label for p in history)
    points = chart.locator("circle").evaluate_all("els => els.map(e => Number(e.getAttribute('cx')))")
    assert len(points) == 3 and points == sorted(points, reverse=(lang == "fa"))  # time runs with the reading
    assert_accessible(page, "a record with its rating")
    screenshot(page, f"standings-rating-player-{lang}-{size}.png", full_page=True)

    page.goto(f"{server}/standings/Kian")  # six games, every one against a bot: not rated
    page.wait_for_selector("[data-testid=rating-none]")
    assert page.locator("[data-testid=rating-value]").count() == 0

    page.goto(f"{server}/standings")
    page.wait_for_selector("[data-testid=players-board]")
    page.click("[data-testid=board-rating]")
    page.wait_for_selector("[data-testid=standings][data-board=rating] [data-testid=rating-board]")
    board = rest(server, "/api/leaderboard", by="rating", limit=10, offset=0)
    assert board["total"] == 3  # Sara, Omid, Leila; not Kian
    ordinals = [row["rating"]["ordinal"] for row in board["items"]]
    assert ordinals == sorted(ordinals, reverse=True)
    assert texts(page, "[data-testid=board-row] .player-link") == [row["name"] for row in board["items"]]
    assert texts(page, "[data-testid=cell-rating]") == [
        f"{shown_signed(row['rating']['ordinal'], lang)} ± {shown_signed(row['rating']['sigma'], lang)}"
        for row in board["items"]
    ]
    assert texts(page, "[data-testid=cell-rated-games]") == [
        shown(r["rating"]["games"], lang) for r in board["items"]
    ]
    assert_accessible(page, "the board by rating")
    screenshot(page, f"standings-rating-board-{lang}-{size}.png", full_page=True)
