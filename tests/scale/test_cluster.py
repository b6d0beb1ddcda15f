"""Three ``python -m app`` processes on one PostgreSQL and one Redis, behind Caddy: whole games with sockets
on different processes, through a process SIGKILLed mid-game and through Redis restarted mid-game. Each on
one Redis server and on a Redis Cluster of three nodes (``REDIS_KINDS``; there, the node that holds the
first table's slot is the one restarted)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from tests.api.wsclient import stored_game

from .cluster import REDIS_KINDS, ready, running_cluster
from .games import check_finished, close, drive, open_table

pytestmark = [pytest.mark.scale, pytest.mark.postgres, pytest.mark.xdist_group("scale")]

SERVER = {"GRACE_SECONDS": "2"}  # seat 3 leaves: the server plays it 2 s later (a timer, run once)


@pytest.mark.parametrize("kind", REDIS_KINDS)
async def test_a_process_killed_mid_game_loses_nothing(tmp_path: Path, kind: str) -> None:
    """Also the plain case before the kill: two tables of a bot, a seat the server plays by its timer and
    people on different processes, all three processes serving rounds 1 and 2 (the redis test below plays
    such tables on three processes to their end)."""
    async with running_cluster(tmp_path, redis_kind=kind, **SERVER) as (cluster, store):
        assert (await ready(cluster.base)).json() == {"status": "ok", "redis": "ok"}
        tables = [await open_table(cluster, [0, 1, 2, 2]), await open_table(cluster, [1, 0, 2, 1])]
        await asyncio.gather(*(drive(t, store, lambda s: s.round >= 3) for t in tables))
        before = [(await stored_game(store, t.game_id))[0] for t in tables]
        cluster.kill(1)  # holds seat 2 of the first table, the host of the second, a spectator
        killed_at = time.monotonic()
        for table in tables:
            table.server_waits.clear()
        finals = await asyncio.gather(*(drive(t, store) for t in tables))
        for table, final, version in zip(tables, finals, before, strict=True):
            assert final.moves > version
            # Bots and timers resume within 5 s, whichever process held the table's lease.
            assert max(table.server_waits) < 5, sorted(table.server_waits)[-3:]
            await check_finished(table, store, final)
            await close(table)
        assert sum(t.reconnects for t in tables) >= 2, "the killed process's players reconnected elsewhere"
        assert time.monotonic() - killed_at < 90


@pytest.mark.parametrize("kind", REDIS_KINDS)
async def test_redis_restarted_mid_game_loses_nothing(tmp_path: Path, kind: str) -> None:
    async with running_cluster(tmp_path, redis_kind=kind, **SERVER) as (cluster, store):
        tables = [await open_table(cluster, [0, 1, 2, 0]), await open_table(cluster, [2, 1, 0, 1])]
        await asyncio.gather(*(drive(t, store, lambda s: s.round >= 3) for t in tables))
        acked = sum(len(t.acked) for t in tables)
        cluster.redis.kill(tables[0].code)  # a cluster: the node of the first table's slot
        # Without Redis, people's moves still commit; server moves wait for a lease until it is back.
        moved = [(await stored_game(store, t.game_id))[1].moves for t in tables]
        pairs = zip(tables, moved, strict=True)
        await asyncio.gather(
            *(drive(t, store, lambda s, m=m: s.moves > m and s.turn in (1, 3)) for t, m in pairs)
        )
        assert sum(len(t.acked) for t in tables) > acked, "no move was made while Redis was down"
        assert (await ready(cluster.direct(0))).status_code == 503
        acked = sum(len(t.acked) for t in tables)
        cluster.redis.start()
        finals = await asyncio.gather(*(drive(t, store) for t in tables))
        assert sum(len(t.acked) for t in tables) > acked
        for table, final in zip(tables, finals, strict=True):
            await check_finished(table, store, final)
            await close(table)
        assert (await ready(cluster.direct(0))).json() == {"status": "ok", "redis": "ok"}
