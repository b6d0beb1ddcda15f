"""Leases on a table's driver in a real Redis: one holder at a time, renewed while held, taken over when the
holder stops renewing (it died), released for the next process."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from app.rooms.lease import RedisLeases

from .cluster import REDIS_KINDS, RedisServer, client_of, redis_of

# A redis-server of its own and no app process: light enough to run beside anything (not in the "scale"
# group, whose clusters run one at a time on one worker).
pytestmark = [pytest.mark.scale]


@pytest.mark.parametrize("kind", REDIS_KINDS)
async def test_one_holder_renewed_then_taken_over_when_it_stops(tmp_path: Path, kind: str) -> None:
    """On a cluster too: each lease is one key on the shard of its table, and A's renewals of tables on every
    node go in one pipeline (split by node)."""
    server = redis_of(kind, tmp_path)
    server.start()
    client = client_of(server)
    # Lives long enough that a busy machine's event loop still renews in time (renewals are real time).
    a, b = RedisLeases(client, "a", 1500), RedisLeases(client, "b", 1500)
    try:
        # A hang fails with where it waited (once, in a loaded run, this test waited 10 minutes and more).
        async with asyncio.timeout(60):
            others = [f"T{i}" for i in range(12)]  # a dozen slots: every node of a cluster holds some
            for code in ["ROOM", *others]:
                assert await a.acquire(code)
            assert not await b.acquire("ROOM")
            await asyncio.sleep(3.5)  # more than two lives: still A's, because A renews it
            assert not await b.acquire("ROOM") and a.holds("ROOM")
            for code in others:
                assert a.holds(code) and not await b.acquire(code), code
            await a.close()  # released: B takes it at once
            assert await b.acquire("ROOM")
            assert b._task is not None
            b._task.cancel()  # B "dies": no more renewals
            await asyncio.sleep(2.0)
            assert await a.acquire("ROOM"), "the lease of a process that stopped renewing expires"
    finally:
        try:
            async with asyncio.timeout(30):
                await a.close()
                await b.close()
                await client.aclose()
        finally:
            server.kill()


async def test_close_returns_even_when_it_lands_in_the_middle_of_a_renewal(tmp_path: Path) -> None:
    """redis-py sometimes swallows a cancellation that lands mid-command: a renewal loop that relied on the
    cancellation alone went on renewing, and close() (a process's shutdown) never returned. Leases that
    renew every 10 ms are closed at random moments, many times: each close returns within a second."""
    server = RedisServer(tmp_path)
    server.start()
    client = aioredis.from_url(server.url)
    rng = random.Random(13)
    try:
        for attempt in range(300):
            leases = RedisLeases(client, f"p{attempt}", 40)
            assert await leases.acquire(f"ROOM{attempt}")
            await asyncio.sleep(rng.random() * 0.02)
            closing = asyncio.ensure_future(leases.close())
            done, _ = await asyncio.wait({closing}, timeout=1.0)
            assert done, f"close() did not return (attempt {attempt}): the renewal loop went on"
    finally:
        await client.aclose()
        server.kill()
