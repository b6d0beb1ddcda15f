"""PostgreSQL briefly unreachable: moves are refused with a clear error (never acknowledged), /readyz says
so, and moves are made again once it is back."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import asyncpg
import pytest
from sqlalchemy.engine import make_url

from tests.api.wsclient import Client, create_room, pick_move, stored_game
from tests.conftest import postgres_test_url
from tests.reads import list_actions

from .cluster import ready, running_cluster

pytestmark = [pytest.mark.scale, pytest.mark.postgres, pytest.mark.xdist_group("scale")]


async def _admin() -> asyncpg.Connection:
    return await asyncpg.connect(
        make_url(postgres_test_url()).set(drivername="postgresql").render_as_string(False)
    )


async def _shut_out(database: str, allow: bool) -> None:
    """Refuse (or allow again) new connections to ``database``, dropping the open ones."""
    admin = await _admin()
    try:
        await admin.execute(f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS {"true" if allow else "false"}')
        if not allow:
            await admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", database
            )
    finally:
        await admin.close()


async def test_moves_are_refused_not_acknowledged_while_the_database_is_away(tmp_path: Path) -> None:
    async with running_cluster(tmp_path, processes=2) as (cluster, store):
        database = make_url(cluster.db_url).database
        assert database
        created = await create_room(cluster.base, "Ann", seats=2, bots=["normal"], options={})
        host = await Client.connect(cluster.direct(0), created["code"])
        await host.hello(created["token"])
        await host.send({"type": "start"})
        started = await host.until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")
        game_id = started["room"]["game_id"]
        version, state = await stored_game(store, game_id)
        while state.turn != 0:  # the bot's turn first, if it is
            await asyncio.sleep(0.01)
            version, state = await stored_game(store, game_id)
        move = pick_move(state)
        await store.engine.dispose()  # the test's own connections go too
        await _shut_out(database, allow=False)
        try:
            refused = await host.act(move, version=version, action_id="while-away")
            assert refused["type"] == "error" and refused["code"] == "not_ready", refused
            assert "not made" in refused["message"]
            assert (await ready(cluster.direct(0))).status_code == 503
        finally:
            await _shut_out(database, allow=True)
        deadline = time.monotonic() + 15
        while (answer := await host.act(move, version=version, action_id="while-away"))["type"] != "ack":
            assert answer["code"] in ("not_ready", "stale_version"), answer
            assert time.monotonic() < deadline, "moves did not resume once the database was back"
            await asyncio.sleep(0.2)
        assert answer["version"] == version + 1
        assert [a.client_id for a in await list_actions(store, game_id) if a.client_id] == ["while-away"]
        await host.close()
