"""Notices over a real Redis: a burst of publishes far larger than the connection pool (a busy process at
saturation) all reach the other process, in no more connections than the pool allows; after Redis restarts,
the first notice and the first lease go through (the pool's dead connections are replaced)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from app.rooms.broadcast import Notice, RedisBroadcaster, encode_notice
from app.rooms.lease import RedisLeases

from .cluster import RedisServer

# A redis-server of its own and no app process: light enough to run beside anything (not in the "scale"
# group, whose clusters run one at a time on one worker).
pytestmark = [pytest.mark.scale]

BURST = 1000  # several times the pool, and more than redis-py's default pool of 100


async def _until(check: object, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.02)


@dataclass
class Pair:
    """A redis-server of the test's own, a process publishing on it, and what another process heard."""

    server: RedisServer
    sender: RedisBroadcaster
    receiver: RedisBroadcaster
    heard: list[int] = field(default_factory=list)


@pytest.fixture
async def pair(tmp_path: Path) -> AsyncIterator[Pair]:
    server = RedisServer(tmp_path)
    server.start()
    both = Pair(server, RedisBroadcaster(server.url), RedisBroadcaster(server.url))
    both.receiver.subscribe("ROOM", lambda notice: both.heard.append(notice.version))
    both.sender.subscribe("ROOM", lambda _notice: None)
    try:
        both.sender.start()
        both.receiver.start()
        await _until(lambda: both.sender.up and both.receiver.up)
        yield both
    finally:
        await both.sender.close()
        await both.receiver.close()
        server.kill()


async def test_a_burst_of_publishes_larger_than_the_pool_all_arrive(pair: Pair) -> None:
    sender, heard = pair.sender, pair.heard
    probe = aioredis.from_url(pair.server.url)
    try:
        await asyncio.gather(
            *(sender.publish(Notice("ROOM", "state", version)) for version in range(1, BURST + 1))
        )
        await _until(lambda: len(heard) == BURST)
        assert sorted(heard) == list(range(1, BURST + 1))
        clients = await probe.client_list()
        pool = sender.redis.connection_pool.max_connections
        # Two pools and the probe's own connection: the burst did not open a connection per publish.
        assert pool < BURST and len(clients) <= 2 * pool + 1
    finally:
        await probe.aclose()


async def test_after_redis_restarts_the_first_notice_and_lease_go_through(pair: Pair) -> None:
    sender, receiver, heard, server = pair.sender, pair.receiver, pair.heard, pair.server
    leases = RedisLeases(sender.redis, sender.process_id, 2000)
    try:
        await asyncio.gather(*(sender.publish(Notice("ROOM", "state", v)) for v in range(1, 9)))
        await _until(lambda: len(heard) == 8)  # the pool holds open connections now
        server.kill()
        await _until(lambda: not sender.up and not receiver.up)
        server.start()
        await _until(lambda: sender.up and receiver.up)
        await sender.publish(Notice("ROOM", "state", 9))
        await _until(lambda: heard[-1:] == [9])
        assert await leases.acquire("ROOM"), "a lease could not be taken on the first try after the restart"
        assert sender.dropped == 0
    finally:
        await leases.close()


async def test_malformed_and_unsigned_notices_are_dropped_alone(tmp_path: Path) -> None:
    """Whoever reaches Redis publishes junk and forged notices on a room's channel: each is dropped on its
    own (the subscription stays up, no room is told to resync), and with a notice key a notice without its
    signature is dropped too, while the processes' own notices go through."""
    server = RedisServer(tmp_path)
    server.start()
    key = "a shared secret"
    sender, receiver = RedisBroadcaster(server.url, key=key), RedisBroadcaster(server.url, key=key)
    resyncs: list[str | None] = []
    receiver.on_resync = resyncs.append
    heard: list[int] = []
    receiver.subscribe("ROOM", lambda notice: heard.append(notice.version))
    sender.subscribe("ROOM", lambda _notice: None)
    forger = aioredis.Redis.from_url(server.url)
    try:
        sender.start()
        receiver.start()
        await _until(lambda: sender.up and receiver.up)
        resyncs.clear()
        unsigned = encode_notice(Notice("ROOM", "state", 99), "forger")
        wrongly_signed = encode_notice(Notice("ROOM", "state", 98), "forger", b"guessed")
        for junk in ("not json", "[1, 2]", '{"from": 1}', unsigned, wrongly_signed):
            await forger.publish("tt:room:ROOM", junk)
        await sender.publish(Notice("ROOM", "state", 7))
        await _until(lambda: heard == [7])
        await asyncio.sleep(0.2)
        assert heard == [7] and receiver.up and receiver.reconnects == 0 and resyncs == []
    finally:
        await forger.aclose()
        await sender.close()
        await receiver.close()
        server.kill()


async def test_a_processs_own_notices_back_from_redis_are_not_read_again(
    pair: Pair, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sender is subscribed to the room too (it has the table loaded), so Redis hands it back every notice
    it published; it heard each one when publishing, and drops the copy without parsing it."""
    import app.rooms.broadcast as broadcast

    decoded: list[str] = []
    decode = broadcast.decode_notice

    def counted(data: str, key: bytes = b"") -> tuple[str, Notice]:
        decoded.append(data)
        return decode(data, key)

    monkeypatch.setattr(broadcast, "decode_notice", counted)
    own: list[int] = []
    pair.sender.subscribe("ROOM", lambda notice: own.append(notice.version))
    for version in range(1, 51):
        await pair.sender.publish(Notice("ROOM", "moves", version, {}))
    await _until(lambda: len(pair.heard) == 50)
    await asyncio.sleep(0.3)  # the sender's copies have come back by now
    assert own == list(range(1, 51)), "heard once each, when published"
    assert len(decoded) == 50, "only the receiver read them"
