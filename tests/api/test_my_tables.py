"""POST /api/my-tables on SQLite and PostgreSQL: one request answers for many real tables (a paced game being
played, a lobby, a seat a bot plays for its person), a token answers only where it holds a seat, tokens are
never logged, the statements per request do not grow with the tables, bad bodies get clear 422s, and each
address has a budget."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import event
from sqlalchemy.engine import Engine

from tests.conftest import at_head
from tests.security.conftest import assert_not_logged, live_server

from .wsclient import Client, create_room, join_room, running_server, server_settings

MY_TABLES = "/api/my-tables"


async def my_tables(base: str, *tables: dict[str, Any]) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=base) as http:
        response = await http.post(MY_TABLES, json={"tables": list(tables)})
    assert response.status_code == 200, response.text
    return dict(response.json())


def held(room: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"code": room["code"], "token": room["token"], **extra}


def when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


@pytest.fixture
async def quiet_server(db_url: str, sqlite_at_head: Path) -> AsyncIterator[str]:
    """A server whose paced tables' waker does not look at the store during a test."""
    settings = server_settings(at_head(db_url, sqlite_at_head), pace_wake_seconds=3600)
    with running_server(settings) as base:
        yield base


async def test_one_request_answers_for_every_table_a_token_holds(quiet_server: str) -> None:
    base = quiet_server
    paced = await create_room(base, "Sara", seats=2, options={"pace": 24})  # nobody moves meanwhile
    omid = await join_room(base, paced["code"], "Omid")
    omid["code"] = paced["code"]
    own = await create_room(base, "Omid", bots=1)  # his own table, in the lobby
    other = await create_room(base, "Nima")  # not his
    leila = await create_room(base, "Leila")
    sara = await Client.connect(base, paced["code"])
    await sara.hello(paced["token"])
    await sara.send({"type": "start"})
    state = await sara.until(lambda m: m["type"] == "state" and m["game"] is not None)
    await sara.send({"type": "chat", "text": "salam"})
    said = await sara.next("chat")
    await sara.close()

    answer = await my_tables(
        base,
        held(omid),
        held(own),
        {"code": other["code"], "token": omid["token"]},  # his token, another's table
        {"code": "NOSUCH23", "token": omid["token"]},
        {"code": leila["code"], "token": "x" * 43},  # a token that is nobody's
    )
    assert [t["code"] for t in answer["tables"]] == [paced["code"], own["code"]]
    assert answer["gone"] == [other["code"], "NOSUCH23", leila["code"]]
    table, lobby = answer["tables"]
    turn = state["game"]["turn"]
    assert table["status"] == "playing" and table["host"] == "Sara" and table["pace"] == 24
    assert (table["seat"], table["held"], table["game"], table["round"]) == (1, "you", 1, 1)
    assert table["players"] == [
        {"seat": 0, "name": "Sara", "bot": False, "program": False, "avatar": None, "you": False},
        {"seat": 1, "name": "Omid", "bot": False, "program": False, "avatar": None, "you": True},
    ]
    assert table["turn"] == turn and table["your_turn"] is (turn == 1)
    deadline = state["room"]["turn_deadline"]
    assert abs(when(table["due_at"]) - when(deadline)) < timedelta(seconds=1)
    assert when(table["due_at"]) - when(answer["server_time"]) > timedelta(hours=23)
    assert table["chat"] == {"latest": table["chat"]["latest"], "unread": 1}
    assert when(table["chat"]["latest"]) == when(said["at"])
    assert lobby["status"] == "lobby" and lobby["pace"] == "live" and lobby["host"] == "Omid"
    assert [(p["name"], p["bot"], p["you"]) for p in lobby["players"]] == [
        ("Omid", False, True),
        ("Bot 2", True, False),
    ]
    assert (lobby["turn"], lobby["your_turn"], lobby["due_at"], lobby["game"]) == (None, False, None, None)
    # Read up to Sara's line: nothing unread; and Sara's own line is never unread for her.
    again = await my_tables(base, held(omid, chat_read=said["at"]))
    assert again["tables"][0]["chat"]["unread"] == 0
    (hers,) = (await my_tables(base, held(paced)))["tables"]
    assert (hers["seat"], hers["chat"]["unread"], hers["your_turn"]) == (0, 0, turn == 0)


async def test_a_token_that_holds_nothing_there_tells_nothing(quiet_server: str) -> None:
    """Another table's token, a made-up token, a table that does not exist: the same answer, and no other
    seat's token or anything of the table."""
    base = quiet_server
    sara = await create_room(base, "Sara")
    omid = await create_room(base, "Omid")
    for asked in (
        {"code": sara["code"], "token": omid["token"]},
        {"code": sara["code"], "token": "A" * 43},
        {"code": "ZZZZ2345", "token": sara["token"]},
    ):
        answer = await my_tables(base, asked)
        assert answer["tables"] == [] and answer["gone"] == [asked["code"]]
    both = await my_tables(base, held(sara), held(omid))
    text = str(both)
    assert sara["token"] not in text and omid["token"] not in text and "token" not in text


async def test_a_seat_a_bot_plays_for_its_person_stays_on_their_list(quiet_server: str) -> None:
    base = quiet_server
    room = await create_room(base, "Sara")
    omid = await join_room(base, room["code"], "Omid")
    client = await Client.connect(base, room["code"])
    await client.hello(omid["token"])
    await client.send({"type": "leave"})
    await client.until(lambda m: m["type"] == "welcome" and m["seat"] is None)
    await client.close()
    answer = await my_tables(base, {"code": room["code"], "token": omid["token"]})
    (table,) = answer["tables"]
    assert (table["seat"], table["held"], table["your_turn"]) == (1, "bot", False)
    assert table["players"][1] == {
        "seat": 1,
        "name": "Omid",
        "bot": True,
        "program": False,
        "avatar": None,
        "you": True,
    }


@contextmanager
def statements_of(url_database: str) -> Iterator[list[str]]:
    """Every statement the server's engines send to the database named ``url_database`` meanwhile."""
    seen: list[str] = []
    lock = threading.Lock()

    def note(conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if conn.engine.url.database == url_database:
            with lock:
                seen.append(statement)

    event.listen(Engine, "before_cursor_execute", note)
    try:
        yield seen
    finally:
        event.remove(Engine, "before_cursor_execute", note)


async def test_the_statements_per_request_do_not_grow_with_the_tables(quiet_server: str, db_url: str) -> None:
    base = quiet_server
    rooms = [await create_room(base, f"Sara {n}") for n in range(12)]
    from sqlalchemy.engine import make_url

    database = make_url(db_url).database
    assert database
    counts = []
    for many in (1, 4, 12):
        with statements_of(database) as seen:
            answer = await my_tables(base, *(held(r) for r in rooms[:many]))
        assert len(answer["tables"]) == many
        counts.append(len(seen))
    assert counts == [1, 1, 1], counts


@pytest.mark.parametrize(
    ("body", "names"),
    [
        ({}, "tables"),
        ({"tables": "K7QX3MPA"}, "tables"),
        ({"tables": [{"code": "K7QX3MPA"}]}, "tables.0.token"),
        ({"tables": [{"code": "K7/QX3", "token": "abc"}]}, "tables.0.code"),
        ({"tables": [{"code": "K7QX3MPA", "token": "a b"}]}, "tables.0.token"),
        ({"tables": [{"code": "K7QX3MPA", "token": "t" * 129}]}, "tables.0.token"),
        ({"tables": [{"code": "K7QX3MPA", "token": "abc", "seat": 1}]}, "tables.0.seat"),
        ({"tables": [{"code": "K7QX3MPA", "token": "abc", "chat_read": "2026-12-06T08:00:00"}]}, "chat_read"),
        ({"tables": [{"code": "K7QX3MPA", "token": "abc", "chat_read": "yesterday"}]}, "chat_read"),
        ({"tables": [{"code": "K7QX3MPA", "token": "a"}, {"code": "k7qx3mpa", "token": "b"}]}, "once"),
        ({"tables": [{"code": f"CODE{n:04d}", "token": "abc"} for n in range(51)]}, "50"),
    ],
)
async def test_malformed_bodies_get_a_clear_422(sqlite_server: str, body: dict[str, Any], names: str) -> None:
    async with httpx.AsyncClient(base_url=sqlite_server) as http:
        response = await http.post(MY_TABLES, json=body)
    assert response.status_code == 422, response.text
    error = response.json()
    assert error["code"] == "bad_request" and names in error["message"], error
    assert "t" * 129 not in error["message"]


async def test_the_tables_are_read_by_post_only(sqlite_server: str) -> None:
    async with httpx.AsyncClient(base_url=sqlite_server) as http:
        assert (await http.get(MY_TABLES)).status_code == 405


async def test_each_address_has_a_budget(sqlite_url: str, sqlite_at_head: Path) -> None:
    """Six a minute: bursts of two, then 429 for that address (another address is not held back)."""
    settings = server_settings(
        at_head(sqlite_url, sqlite_at_head), max_table_lists_per_minute=6, trusted_proxies="127.0.0.1"
    )
    with running_server(settings) as base:
        async with httpx.AsyncClient(base_url=base) as http:
            statuses = [(await http.post(MY_TABLES, json={"tables": []})).status_code for _ in range(3)]
            refused = await http.post(MY_TABLES, json={"tables": []})
            elsewhere = await http.post(
                MY_TABLES, json={"tables": []}, headers={"X-Forwarded-For": "203.0.113.9"}
            )
    assert statuses == [200, 200, 429]
    assert refused.status_code == 429 and refused.json()["code"] == "rate_limited"
    assert elsewhere.status_code == 200


async def test_tokens_are_never_logged(sqlite_url: str, sqlite_at_head: Path) -> None:
    """The server's whole log at INFO (its own modules at DEBUG), access lines included, over answered
    requests and refused ones, holds none of the tokens asked with."""
    with live_server(at_head(sqlite_url, sqlite_at_head)) as (base, _settings, logs):
        room = await create_room(base, "Sara")
        made_up = "Zq" * 21 + "x"
        other = await create_room(base, "Omid")
        await my_tables(base, held(room), {"code": other["code"], "token": made_up})
        async with httpx.AsyncClient(base_url=base) as http:
            bad = await http.post(MY_TABLES, json={"tables": [{"code": "!!", "token": made_up, "x": 1}]})
            assert bad.status_code == 422
        assert_not_logged(logs.text(), [room["token"], made_up])
