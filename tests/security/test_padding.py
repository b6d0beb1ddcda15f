"""The cheapest padding of a record does not count (issue 39, item 1): one person playing two tabs of theirs
under two names, from one address, fills neither record; the same game between two addresses counts for
both, and a game against bots counts. The address itself is stored nowhere: each seat keeps a keyed hash
under its table's own salt (``app.table.origins``). On a real server believing X-Forwarded-For from
loopback, on SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from sqlalchemy import inspect, text

from app.store.db import make_engine
from app.store.standings_writes import counted_seats
from tests.api.test_seat_records import play_to_the_end
from tests.api.wsclient import Client
from tests.conftest import at_head

from .conftest import serving

HOME, FRIEND = "203.0.113.7", "198.51.100.22"


async def play(base: str, people: list[tuple[str, str]], bots: int = 0) -> tuple[str, str]:
    """A table of ``people`` ((name, address), the first the host) and ``bots`` easy bots, played to the end
    over sockets; the table's code and the game's public id."""
    (host, host_address), *guests = people
    async with httpx.AsyncClient(base_url=base) as http:
        made = await http.post(
            "/api/rooms",
            json={"name": host, "seats": len(people) + bots, "bots": ["easy"] * bots},
            headers={"X-Forwarded-For": host_address},
        )
        assert made.status_code == 201, made.text
        code, tokens = made.json()["code"], [made.json()["token"]]
        for name, address in guests:
            joined = await http.post(
                f"/api/rooms/{code}/join", json={"name": name}, headers={"X-Forwarded-For": address}
            )
            assert joined.status_code == 200, joined.text
            tokens.append(joined.json()["token"])
    clients = [await Client.connect(base, code) for _ in tokens]
    try:
        for client, token in zip(clients, tokens, strict=True):
            await client.hello(token)
        await clients[0].send({"type": "start"})
        state = await clients[0].until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")
        await play_to_the_end(clients)
        return code, str(state["room"]["game_id"])
    finally:
        for client in clients:
            await client.close()


async def counted(base: str, game_id: str) -> list[tuple[str, bool]]:
    async with httpx.AsyncClient(base_url=base) as http:
        game = (await http.get(f"/api/games/{game_id}")).json()
    return [(p["name"], p["counted"]) for p in game["players"] if not p["bot"]]


async def games_of(base: str, name: str) -> int:
    async with httpx.AsyncClient(base_url=base) as http:
        response = await http.get(f"/api/players/{name}")
    return 0 if response.status_code == 404 else int(response.json()["games"])


async def every_text_in(db_url: str) -> str:
    """Every value of every table of the database, as one text."""
    engine = make_engine(db_url)
    try:
        async with engine.connect() as conn:
            tables = await conn.run_sync(lambda c: inspect(c).get_table_names())
            rows = [await conn.execute(text(f'select * from "{table}"')) for table in tables]
            return "\n".join(repr(row) for result in rows for row in result.all())
    finally:
        await engine.dispose()


@pytest.mark.slow
async def test_two_tabs_from_one_address_fill_no_record_and_friends_from_two_do(
    db_url: str, sqlite_at_head: Path
) -> None:
    async with serving(at_head(db_url, sqlite_at_head), trusted_proxies="127.0.0.1") as srv:
        table, padded = await play(srv.base, [("Sara", HOME), ("Sara's twin", HOME)])
        assert await counted(srv.base, padded) == [("Sara", False), ("Sara's twin", False)]
        assert await games_of(srv.base, "Sara") == 0 and await games_of(srv.base, "Sara's twin") == 0
        # Friends on one home network still see their own table's series.
        async with httpx.AsyncClient(base_url=srv.base) as http:
            series = (await http.get(f"/api/rooms/{table}/leaderboard")).json()
        assert sorted((p["name"], p["games"]) for p in series["items"]) == [("Sara", 1), ("Sara's twin", 1)]

        _, fair = await play(srv.base, [("Sara", HOME), ("Omid", FRIEND)])
        assert await counted(srv.base, fair) == [("Sara", True), ("Omid", True)]
        _, alone = await play(srv.base, [("Nima", HOME)], bots=1)  # against a bot: counts as before
        assert await counted(srv.base, alone) == [("Nima", True)]
        assert [await games_of(srv.base, n) for n in ("Sara", "Omid", "Nima")] == [1, 1, 1]
    stored = await every_text_in(db_url)
    assert "Sara" in stored, "the dump holds the tables' text"
    assert HOME not in stored and FRIEND not in stored, "no address is stored, only its keyed hash"


def seat(
    index: int,
    name: str,
    origin: str | None,
    *,
    bot: bool = False,
    program: bool = False,
    practice: bool = False,
) -> tuple[object, ...]:
    """A row as ``counted_seats`` reads it: seat, name, skeleton, bot, program, practice, handed, origin."""
    return (index, name, name.lower(), bot, program, practice, False, origin)


@pytest.mark.parametrize(
    ("seats", "expected"),
    [
        ([seat(0, "Sara", "a"), seat(1, "Twin", "a")], []),  # one address: neither counts
        ([seat(0, "Sara", "a"), seat(1, "Omid", "b")], [0, 1]),
        ([seat(0, "Sara", "a"), seat(1, "Twin", "a"), seat(2, "Omid", "b")], [0, 1, 2]),  # a friend there too
        ([seat(0, "Sara", "a"), seat(1, "Bot 2", None, bot=True)], [0]),  # against bots alone
        ([seat(0, "Sara", None), seat(1, "Omid", None)], [0, 1]),  # from before origins: unknown
        ([seat(0, "Sara", "a"), seat(1, "Omid", None)], [0, 1]),
        # one person beside a program of their own, or a practice seat of their own, that plays to lose
        ([seat(0, "Sara", "a"), seat(1, "Loser", "a", program=True)], []),
        ([seat(0, "Sara", "a"), seat(1, "Twin", "a", practice=True)], []),
        ([seat(0, "Sara", "a"), seat(1, "Script", "b", program=True)], [0]),  # someone else's program
    ],
)
def test_a_seat_counts_unless_every_other_counted_seat_joined_from_its_address(
    seats: list[tuple[object, ...]], expected: list[int]
) -> None:
    assert sorted(counted_seats(seats, [])) == expected
