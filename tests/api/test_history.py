"""Score history over REST: games per room and per player, score sheets, rounds, exports, leaderboards."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from sqlalchemy import insert

from app.engine import GameState, Options, action_from_dict, replay
from app.store import Store
from app.store.models import GamePlayerRow, GameRow, RoomRow
from app.table.text import name_key, name_skeleton
from tests.reads import load_game_state

from .wsclient import Client, create_room

POINTS = {"A": 1, "J": 10, "Q": 10, "K": 10}


def quick_move(view: dict[str, Any]) -> dict[str, str]:
    """A player reading only its own view: draw the stock, go out when it can, else throw dear deadwood."""
    if "draw_stock" in view["legal"]:
        return {"type": "draw", "source": "stock"}
    if view["can_go_out"]:
        return {"type": "go_out", "card": view["can_go_out"][0]}
    cards = view["arrangement"]["deadwood"] or view["hand"]
    return {"type": "discard", "card": max(cards, key=lambda c: POINTS.get(c[:-1], 0) or int(c[:-1] or 0))}


async def play_with_a_bot(server: str, name: str, *, finish: bool = True) -> tuple[str, str]:
    """A table of one person and one bot; the person plays until the game ends (or round 1 ends)."""
    created = await create_room(server, name, seats=2, bots=["normal"])
    client = await Client.connect(server, created["code"])
    await client.hello(created["token"])
    await client.send({"type": "start"})
    state = await client.until(lambda m: m["type"] == "state" and m["game"] is not None)
    game_id = state["room"]["game_id"]
    while True:
        view = client.state["game"] if client.state else None
        if view is None:
            await client.next("state")
            continue
        if view["phase"] == "game_over" or (not finish and view["round"] > 1):
            break
        if view["turn"] == view["seat"] and view["legal"]:
            answer = await client.act(quick_move(view), version=client.state["version"])
            if answer["type"] == "ack":
                await client.wait_version(answer["version"])
            continue
        await client.next("state", timeout=20)
    await client.close()
    return created["code"], game_id


async def get(server: str, path: str, **params: Any) -> httpx.Response:
    async with httpx.AsyncClient(base_url=server, timeout=30) as http:
        return await http.get(path, params=params)


async def test_finished_game_history_export_and_leaderboard(server: str, store: Store) -> None:
    code, game_id = await play_with_a_bot(server, "Sara")

    game = (await get(server, f"/api/games/{game_id}")).json()
    assert game["status"] == "finished"
    assert [p["name"] for p in game["players"]] == ["Sara", game["players"][1]["name"]]
    assert game["players"][1]["bot"] is True
    assert len(game["scores"]) == 11 and all(len(row) == 2 for row in game["scores"])
    assert game["totals"] == [sum(row[s] for row in game["scores"]) for s in range(2)]
    assert game["winners"] == [s for s in range(2) if game["totals"][s] == min(game["totals"])]

    for round_number in (1, 11):
        shown = (await get(server, f"/api/games/{game_id}/rounds/{round_number}")).json()
        assert shown["round"] == round_number and len(shown["hands"]) == 2
        assert [h["penalty"] for h in shown["hands"]] == game["scores"][round_number - 1]
        assert shown["hands"][shown["went_out"]]["penalty"] == 0

    export = (await get(server, f"/api/games/{game_id}/export")).json()
    actions = [(a["seat"], action_from_dict(a["action"])) for a in export["actions"]]
    rebuilt = replay(export["players"], Options.from_dict(export["options"]), export["seed"], actions)
    loaded = await load_game_state(store, game_id)
    assert loaded is not None
    assert rebuilt == GameState.from_dict(loaded[1]), "the export replays to the stored final state"
    assert rebuilt.totals() == game["totals"]

    games = (await get(server, f"/api/rooms/{code}/games")).json()
    assert games["total"] == 1 and games["items"][0]["id"] == game_id
    assert games["items"][0]["totals"] == game["totals"]

    board = (await get(server, f"/api/rooms/{code}/leaderboard")).json()
    by_name = {row["name"]: row for row in board["items"]}
    assert by_name["Sara"]["games"] == 1
    # A tie shares the win (RULES.md "Winning"): each of k tied winners gets 1/k.
    assert by_name["Sara"]["wins"] == (1 / len(game["winners"]) if 0 in game["winners"] else 0)
    assert by_name["Sara"]["average_total"] == game["totals"][0]
    assert len(by_name) == 1, "the bot's seat is never counted in the standings"

    mine = (await get(server, "/api/players/sara/games")).json()  # names match in any letter case
    assert [g["id"] for g in mine["items"]] == [game_id]


async def test_only_the_tables_own_list_names_the_table_of_a_finished_game(server: str) -> None:
    """A finished game's table lives on (rematch, reopen): a record found by a player's name or a game id
    must not lead anyone to it. The table's own list, where the caller named it, gives it for replay links."""
    code, game_id = await play_with_a_bot(server, "Sara")
    listed = (await get(server, f"/api/rooms/{code}/games")).json()["items"]
    assert [g["room"] for g in listed] == [code]
    for path in (
        "/api/players/sara/games",
        f"/api/games/{game_id}",
        f"/api/games/{game_id}/export",
        f"/api/games/{game_id}/replay",
    ):
        response = await get(server, path)
        assert response.status_code == 200
        assert code not in response.text, f"{path} names the table"


async def test_a_game_in_progress_reveals_nothing_hidden(server: str) -> None:
    code, game_id = await play_with_a_bot(server, "Omid", finish=False)
    game = (await get(server, f"/api/games/{game_id}")).json()
    assert game["status"] == "playing"
    assert len(game["scores"]) == 1, "only the ended round is on the sheet"
    assert game["winners"] == []
    assert "seed" not in game and "state" not in game
    # The code of a table in play is given out by no public record (anyone could join or watch it), and a
    # game being played is in nobody's history by name (anyone could follow a person's live games).
    assert game["room"] is None
    assert (await get(server, "/api/players/omid/games")).json()["items"] == []
    assert code not in (await get(server, f"/api/games/{game_id}")).text

    assert (await get(server, f"/api/games/{game_id}/rounds/1")).status_code == 200
    later = await get(server, f"/api/games/{game_id}/rounds/2")
    assert later.status_code == 409 and later.json()["code"] == "round_not_finished"

    refused = await get(server, f"/api/games/{game_id}/export")
    assert refused.status_code == 409 and refused.json()["code"] == "game_not_finished"
    assert "seed" not in refused.text


async def seed_games(store: Store, name: str, finished: list[datetime], **seat: Any) -> list[str]:
    """Finished games of ``name`` and a bot, written as the finishing move writes them; their public ids."""
    ids = []
    async with store.engine.begin() as conn:
        code = f"S{len(name):02d}{int(finished[0].timestamp()) % 100000:05d}"
        await conn.execute(
            insert(RoomRow).values(
                code=code, created_at=finished[0], status="finished", options={}, seat_count=2, version=1
            )
        )
        for number, at in enumerate(finished, start=1):
            public_id = f"{code.lower()}n{number:03d}"
            game_id = (
                await conn.execute(
                    insert(GameRow)
                    .values(
                        public_id=public_id,
                        room_code=code,
                        number=number,
                        options={},
                        seed=number,
                        players=[],
                        status="finished" if seat.get("finished_at", at) else "playing",
                        version=1,
                        state={},
                        created_at=at - timedelta(minutes=30),
                        finished_at=at,
                    )
                    .returning(GameRow.id)
                )
            ).scalar_one()
            for index, (who, bot) in enumerate(((name, False), ("Bot 2", True))):
                values = {"total": 50, "won": index == 0, "counted": not bot, "finished_at": at, **seat}
                values = {**values, "practice": seat.get("practice", False) and not bot}
                await conn.execute(
                    insert(GamePlayerRow).values(
                        game_id=game_id,
                        seat=index,
                        name=who,
                        name_key=name_key(who),
                        skeleton=name_skeleton(who),
                        is_bot=bot,
                        **values,
                    )
                )
            ids.append(public_id)
    return ids


async def test_a_players_games_newest_first_by_page_by_cursor_and_by_date(server: str, store: Store) -> None:
    """Finished games only (one being played and one whose seat played for practice are left out), the last
    finished first; offsets, and the ``next`` cursor through games that finished at the same instant."""
    t = datetime(2026, 3, 1, 12, tzinfo=UTC)
    times = [
        t,
        t + timedelta(hours=1),
        t + timedelta(hours=1),
        t + timedelta(hours=1),
        t + timedelta(hours=2),
    ]
    ids = await seed_games(store, "Nima", times)
    await seed_games(store, "Nima", [t + timedelta(hours=3)], practice=True)
    await seed_games(store, "NIMA", [t + timedelta(hours=4)], finished_at=None)  # being played
    newest = [ids[4], ids[3], ids[2], ids[1], ids[0]]  # the same finish time: the later game first

    first = (await get(server, "/api/players/Nima/games", limit=2)).json()
    second = (await get(server, "/api/players/Nima/games", limit=2, offset=2)).json()
    assert first["total"] == second["total"] == 5
    assert [g["id"] for g in first["items"] + second["items"]] == newest[:4]
    assert first["limit"] == 2 and second["offset"] == 2
    assert all(g["status"] == "finished" for g in first["items"])
    walked, after = [], None
    while True:
        page = await get(server, "/api/players/nima/games", limit=2, **({"after": after} if after else {}))
        body = page.json()
        walked += [g["id"] for g in body["items"]]
        after = body["next"]
        if after is None:
            break
    assert walked == newest, "the cursor walks every game once, in order, ties included"

    window = {"since": (t + timedelta(minutes=30)).isoformat(), "until": (t + timedelta(hours=2)).isoformat()}
    assert [g["id"] for g in (await get(server, "/api/players/Nima/games", **window)).json()["items"]] == (
        newest[1:4]
    ), "since and until filter on the finish time"

    slashed = await seed_games(store, "AC/DC", [t])
    assert [g["id"] for g in (await get(server, "/api/players/AC%2FDC/games")).json()["items"]] == slashed

    for bad in ({"limit": 0}, {"limit": 101}, {"after": "x"}, {"after": "1." + "a" * 40}):
        assert (await get(server, "/api/players/Nima/games", **bad)).status_code == 422, bad


async def test_games_are_known_by_a_random_public_id_and_never_by_their_number(server: str) -> None:
    code, game_id = await play_with_a_bot(server, "Lale", finish=False)
    assert isinstance(game_id, str) and len(game_id) == 12 and not game_id.isdigit()
    assert (await get(server, f"/api/games/{game_id}")).status_code == 200
    # The store's own ids (1, 2, ...) are never accepted by a public route (nor shown by any).
    for internal in range(1, 6):
        for tail in ("", "/rounds/1", "/export", "/replay"):
            response = await get(server, f"/api/games/{internal}{tail}")
            assert response.status_code == 404 and response.json()["code"] == "game_not_found"
    room = (await get(server, f"/api/rooms/{code}")).json()
    assert room["game"]["id"] == game_id


async def test_unknown_ids_are_404_with_a_code(server: str) -> None:
    for path, code in (
        ("/api/games/999999", "game_not_found"),
        ("/api/games/999999/rounds/1", "game_not_found"),
        ("/api/games/999999/export", "game_not_found"),
        ("/api/rooms/ZZZZZZZZ/games", "room_not_found"),
        ("/api/rooms/ZZZZZZZZ/leaderboard", "room_not_found"),
    ):
        response = await get(server, path)
        assert response.status_code == 404, path
        assert response.json()["code"] == code, path
    assert (await get(server, "/api/players/nobody/games")).json() == {
        "items": [],
        "total": 0,
        "limit": 20,
        "offset": 0,
        "next": None,
    }
    assert (await get(server, "/api/games/1/rounds/12")).status_code == 422


ISO_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")


def times_in(value: Any) -> list[str]:
    """Every string in a JSON value that reads as an ISO 8601 date and time."""
    if isinstance(value, dict):
        return [t for v in value.values() for t in times_in(v)]
    if isinstance(value, list):
        return [t for v in value for t in times_in(v)]
    return [value] if isinstance(value, str) and ISO_TIME.match(value) else []


async def test_every_time_the_api_sends_carries_its_utc_offset(server: str) -> None:
    """SQLite keeps no offset: a time read back from it must still say it is UTC, or a browser outside UTC
    reads it as its own local time."""
    code, game_id = await play_with_a_bot(server, "Sara")
    paths = [
        f"/api/rooms/{code}",
        f"/api/rooms/{code}/games",
        "/api/players/Sara/games",
        f"/api/games/{game_id}",
        f"/api/games/{game_id}/export",
        f"/api/games/{game_id}/replay",
        "/api/players/Sara",
        "/api/leaderboard",
        "/api/leaderboard/games",
        f"/api/rooms/{code}/leaderboard",
    ]
    seen: list[str] = []
    for path in paths:
        response = await get(server, path)
        assert response.status_code == 200, path
        seen += times_in(response.json())
    assert len(seen) >= 10, seen  # created_at and finished_at of the game, in five answers
    for when in seen:
        parsed = datetime.fromisoformat(when)
        assert parsed.utcoffset() == timedelta(0), when
    game = (await get(server, f"/api/games/{game_id}")).json()
    started, ended = datetime.fromisoformat(game["created_at"]), datetime.fromisoformat(game["finished_at"])
    assert started <= ended <= datetime.now(UTC) and datetime.now(UTC) - started < timedelta(minutes=5)
