"""Notices over a real Redis, one server and a cluster of three (``REDIS_KINDS``): a burst of publishes far
larger than the connection pool (a busy process at saturation) all reach the other process, in no more
connections than the pool allows; after Redis restarts (on a cluster: the node of the room), the first notice
and the first lease go through (the pool's dead connections are replaced)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from app.rooms.broadcast import EVERY_ROOM, Notice, encode_notice
from app.rooms.lease import RedisLeases
from app.rooms.redis_broadcast import RedisBroadcaster
from app.rooms.redis_link import room_channel
from app.waiting import probe_redis

from .cluster import REDIS_KINDS, Redis, RedisCluster, client_of, redis_of

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

    server: Redis
    sender: RedisBroadcaster
    receiver: RedisBroadcaster
    heard: list[int] = field(default_factory=list)


@pytest.fixture(params=REDIS_KINDS)
async def pair(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[Pair]:
    server = redis_of(request.param, tmp_path)
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
    await asyncio.gather(
        *(sender.publish(Notice("ROOM", "state", version)) for version in range(1, BURST + 1))
    )
    await _until(lambda: len(heard) == BURST)
    assert sorted(heard) == list(range(1, BURST + 1))
    nodes = pair.server.nodes if isinstance(pair.server, RedisCluster) else [pair.server]
    for node in nodes:
        probe = aioredis.from_url(node.url)
        try:
            clients = await probe.client_list()
        finally:
            await probe.aclose()
        # Two processes' connections and the probe's own: the burst did not open a connection per publish
        # (one server: at most the pool; a cluster node: the one publisher's pipeline, a few commands).
        pool = sender.redis.connection_pool.max_connections if len(nodes) == 1 else 4
        assert pool < BURST and len(clients) <= 2 * pool + 1, (node.port, len(clients))


async def test_after_redis_restarts_the_first_notice_and_lease_go_through(pair: Pair) -> None:
    sender, receiver, heard, server = pair.sender, pair.receiver, pair.heard, pair.server
    leases = RedisLeases(sender.redis, sender.process_id, 2000)
    try:
        await asyncio.gather(*(sender.publish(Notice("ROOM", "state", v)) for v in range(1, 9)))
        await _until(lambda: len(heard) == 8)  # the pool holds open connections now
        server.kill("ROOM")  # on a cluster, the node that holds the room's channel and lease
        await _until(lambda: not sender.up and not receiver.up)
        server.start()
        await _until(lambda: sender.up and receiver.up)
        await sender.publish(Notice("ROOM", "state", 9))
        await _until(lambda: heard[-1:] == [9])
        assert await leases.acquire("ROOM"), "a lease could not be taken on the first try after the restart"
        assert sender.dropped == 0
    finally:
        await leases.close()


@pytest.mark.parametrize("kind", REDIS_KINDS)
async def test_malformed_and_unsigned_notices_are_dropped_alone(tmp_path: Path, kind: str) -> None:
    """Whoever reaches Redis publishes junk and forged notices on a room's channel: each is dropped on its
    own (the subscription stays up, no room is told to resync), and with a notice key a notice without its
    signature is dropped too, while the processes' own notices go through."""
    server = redis_of(kind, tmp_path)
    server.start()
    key = "a shared secret"
    sender, receiver = RedisBroadcaster(server.url, key=key), RedisBroadcaster(server.url, key=key)
    resyncs: list[str | None] = []
    receiver.on_resync = resyncs.append
    heard: list[int] = []
    receiver.subscribe("ROOM", lambda notice: heard.append(notice.version))
    sender.subscribe("ROOM", lambda _notice: None)
    forger = client_of(server)
    command = "SPUBLISH" if kind == "cluster" else "PUBLISH"
    try:
        sender.start()
        receiver.start()
        await _until(lambda: sender.up and receiver.up)
        resyncs.clear()
        unsigned = encode_notice(Notice("ROOM", "state", 99), "forger")
        wrongly_signed = encode_notice(Notice("ROOM", "state", 98), "forger", b"guessed")
        for junk in ("not json", "[1, 2]", '{"from": 1}', unsigned, wrongly_signed):
            await forger.execute_command(command, room_channel("ROOM"), junk)
        await sender.publish(Notice("ROOM", "state", 7))
        await _until(lambda: heard == [7])
        await asyncio.sleep(0.2)
        assert heard == [7] and receiver.up and receiver.reconnects == 0 and resyncs == []
    finally:
        await forger.aclose()
        await sender.close()
        await receiver.close()
        server.kill()


async def test_a_cluster_node_away_stops_only_its_rooms_and_the_leases_of_a_process_not_hearing(
    tmp_path: Path,
) -> None:
    """On a cluster, a node away loses only the notices of the rooms whose slots it holds: a room on another
    node is heard as before. A process that does not hear the heartbeats' channel (its node away, and for a
    while after it is back) takes no lease, even on a node that answers: it would not know who is at the
    table through the others (seen once in the scale suite: a connected person played for)."""
    server = RedisCluster(tmp_path)
    server.start()
    sender, receiver = RedisBroadcaster(server.url), RedisBroadcaster(server.url)
    away, node = "AWAY", server.node_of("AWAY")
    # Two rooms on the node that goes away (two slots: subscribed again together, in one command each) and
    # one on another node.
    also = next(f"A{i}" for i in range(100) if server.node_of(f"A{i}") is node)
    there = next(f"R{i}" for i in range(100) if server.node_of(f"R{i}") is not node)
    heard: dict[str, list[int]] = {away: [], also: [], there: []}
    for room in heard:
        receiver.subscribe(room, lambda notice: heard[notice.room].append(notice.version))
        sender.subscribe(room, lambda _notice: None)
    leases = RedisLeases(sender.redis, sender.process_id, 2000, hearing=lambda: sender.hearing(away, 1.0))
    try:
        sender.start()
        receiver.start()
        await _until(lambda: sender.up and receiver.up)
        assert await leases.acquire(there)
        server.kill(away)
        await _until(lambda: not receiver.hearing(away, 0) and not sender.hearing(away, 0))
        assert receiver.hearing(there, 0) and not receiver.up
        with pytest.raises(Exception):  # noqa: B017 (readiness: every node must answer)
            await receiver.ping()
        await sender.publish(Notice(there, "state", 1))
        await _until(lambda: heard[there] == [1])
        assert not await leases.acquire(there) and not leases.holds(there), "a lease taken while deaf"
        server.start()
        await _until(lambda: sender.hearing(away, 0) and receiver.up)
        assert not await leases.acquire(there), "a lease taken before the others could be heard again"
        await asyncio.sleep(1.0)
        assert await leases.acquire(there)
        await sender.publish(Notice(away, "state", 2))
        await sender.publish(Notice(also, "state", 3))
        await _until(lambda: heard[away] == [2] and heard[also] == [3])
        assert receiver.up and sender.up
    finally:
        await leases.close()
        await sender.close()
        await receiver.close()
        server.kill()


async def test_the_startup_probe_of_a_cluster_pings_every_node(tmp_path: Path) -> None:
    """``redis+cluster://`` at start (app.waiting): the probe answers when every node does, and fails while
    one is away (a process would otherwise start deaf to that node's tables)."""
    server = RedisCluster(tmp_path)
    server.start()
    try:
        await probe_redis(server.url)
        server.kill("ROOM")
        with pytest.raises(Exception):  # noqa: B017 (whichever error redis-py raises for a node away)
            await probe_redis(server.url)
    finally:
        server.kill()


async def test_a_rooms_slot_moved_to_another_node_is_followed_there(tmp_path: Path) -> None:
    """A reshard moves a room's slot: its node drops the room's subscriptions (``sunsubscribe``), every
    process reads the slots again and subscribes on the new node, and the room's notices go on there."""
    server = RedisCluster(tmp_path)
    server.start()
    sender, receiver = RedisBroadcaster(server.url), RedisBroadcaster(server.url)
    heard: list[int] = []
    receiver.subscribe("ROOM", lambda notice: heard.append(notice.version))
    sender.subscribe("ROOM", lambda _notice: None)
    try:
        sender.start()
        receiver.start()
        await _until(lambda: sender.up and receiver.up)
        await sender.publish(Notice("ROOM", "state", 1))
        await _until(lambda: heard == [1])
        target = server.move("ROOM")
        await _until(lambda: sender.reconnects > 0 and receiver.reconnects > 0 and sender.up and receiver.up)
        assert server.node_of("ROOM") is target
        await sender.publish(Notice("ROOM", "state", 2))
        await _until(lambda: heard == [1, 2])
    finally:
        await sender.close()
        await receiver.close()
        server.kill()


async def test_what_a_process_remembers_of_rooms_is_only_the_rooms_loaded_there(pair: Pair) -> None:
    """The shard of each room's channel is remembered while the room is loaded, and forgotten with it (a
    process that served a million tables in a week keeps no trace of them)."""
    sender = pair.sender
    stops = [sender.subscribe(f"T{i}", lambda _notice: None) for i in range(50)]
    for i in range(50):
        await sender.publish(Notice(f"T{i}", "state", 1))
    assert len(sender._shard_names) >= 50
    for stop in stops:
        stop()
    await sender.publish(Notice("T0", "state", 2))  # a last notice after the room closed
    assert set(sender._shard_names) <= {"ROOM"}


async def test_a_processs_own_notices_back_from_redis_are_not_read_again(
    pair: Pair, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sender is subscribed to the room too (it has the table loaded), so Redis hands it back every notice
    it published; it heard each one when publishing, and drops the copy without parsing it."""
    import app.rooms.redis_broadcast as broadcast

    decoded: list[str] = []
    decode = broadcast.decode_notice

    def counted(data: str, key: bytes = b"") -> tuple[str, Notice]:
        sender, notice = decode(data, key)
        if notice.kind == "moves":  # not each process's hello on joining the room, read by the other
            decoded.append(data)
        return sender, notice

    monkeypatch.setattr(broadcast, "decode_notice", counted)
    own: list[int] = []
    pair.sender.subscribe("ROOM", lambda notice: own.append(notice.version))
    for version in range(1, 51):
        await pair.sender.publish(Notice("ROOM", "moves", version, {}))
    await _until(lambda: len(pair.heard) == 50)
    await asyncio.sleep(0.3)  # the sender's copies have come back by now
    assert own == list(range(1, 51)), "heard once each, when published"
    assert len(decoded) == 50, "only the receiver read them"


async def _publishes(server: Redis) -> int:
    """How many PUBLISH (one server) or SPUBLISH (a cluster's nodes) commands Redis has run so far."""
    total = 0
    for node in server.nodes if isinstance(server, RedisCluster) else [server]:
        probe = aioredis.from_url(node.url)
        try:
            stats = await probe.info("commandstats")
        finally:
            await probe.aclose()
        total += sum(stats.get(f"cmdstat_{name}", {}).get("calls", 0) for name in ("publish", "spublish"))
    return total


async def _quiet(sender: RedisBroadcaster, server: Redis, room: str) -> None:
    """``room`` is loaded at ``sender`` only, and has been published on once: Redis said that only the sender
    heard it, and the sender's own notice came back (it is subscribed). Its notices are kept back from now."""
    sender.subscribe(room, lambda _notice: None)
    await asyncio.sleep(0.3)  # subscribed, and its hello has come back to it
    await sender.publish(Notice(room, "state", 1))
    await asyncio.sleep(0.2)  # Redis's answer has been read: the sender alone heard it
    before = await _publishes(server)
    for version in range(2, 12):
        await sender.publish(Notice(room, "state", version))
    await asyncio.sleep(0.2)
    assert await _publishes(server) == before, "notices nobody else hears were published"
    assert sender.kept_back == 10


async def test_a_room_no_other_process_hears_is_kept_quiet_but_the_heartbeat_is_not(pair: Pair) -> None:
    """Behind a balancer that hashes tables, a table's sockets are on one process: its moves are not sent
    to Redis for nobody. The heartbeat (how processes find each other) is always sent, even with no peer."""
    sender, server = pair.sender, pair.server
    await _quiet(sender, server, "QUIET")
    sender.subscribe(EVERY_ROOM, lambda _notice: None)
    await asyncio.sleep(0.3)  # subscribed
    before = await _publishes(server)
    for _ in range(5):
        await sender.publish(Notice(EVERY_ROOM, "here", 0, {}))
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.2)
    assert await _publishes(server) - before == 5


async def test_a_process_that_joins_a_quiet_room_hears_what_was_kept_back_and_all_after(pair: Pair) -> None:
    """A second process loads the table (a socket on another process, a process that took over): its hello
    makes the first publish again, starting with the last seconds' notices it kept back, so the newcomer
    misses nothing it did not read from the store. When the newcomer leaves, the room is quiet again."""
    sender, receiver, server = pair.sender, pair.receiver, pair.server
    await _quiet(sender, server, "QUIET")
    heard: list[int] = []
    stop = receiver.subscribe("QUIET", lambda notice: heard.append(notice.version))
    await _until(lambda: heard == list(range(2, 12)))  # what was kept back, in order
    for version in range(12, 22):
        await sender.publish(Notice("QUIET", "state", version))
    await _until(lambda: heard[-1:] == [21])
    assert heard == list(range(2, 22))
    stop()  # the newcomer's copy leaves
    await asyncio.sleep(0.3)  # it has unsubscribed
    await sender.publish(Notice("QUIET", "state", 22))  # Redis counts the sender alone again
    await asyncio.sleep(0.3)
    before, kept = await _publishes(server), sender.kept_back
    for version in range(23, 28):
        await sender.publish(Notice("QUIET", "state", version))
    await asyncio.sleep(0.2)
    assert await _publishes(server) == before and sender.kept_back == kept + 5


async def test_joining_while_the_room_moves_loses_no_notice(pair: Pair) -> None:
    """The table moves every few milliseconds while another process loads it: whatever the order of its
    hello and the moves, it hears every notice from its first on, with no gap (a gap would be a move its
    sockets see only at the next sweep of the store)."""
    sender, receiver, server = pair.sender, pair.receiver, pair.server
    await _quiet(sender, server, "QUIET")
    heard: list[int] = []
    last = 300

    async def moves() -> None:
        for version in range(12, last + 1):
            await sender.publish(Notice("QUIET", "state", version))
            await asyncio.sleep(0.003)

    moving = asyncio.create_task(moves())
    await asyncio.sleep(0.2)
    receiver.subscribe("QUIET", lambda notice: heard.append(notice.version))
    await moving
    await _until(lambda: heard[-1:] == [last])
    assert heard and heard[0] < 100, "joined in the middle of the moves"
    assert sorted(set(heard)) == list(range(heard[0], last + 1))


async def test_after_redis_restarts_a_quiet_room_is_said_again_until_proven_quiet_anew(pair: Pair) -> None:
    """What proved a room quiet belongs to the subscription it was proven on: after Redis restarts, the room
    is published on again (a process may have joined it while Redis was away, its hello lost), and a
    process that did join meanwhile hears the next notice."""
    sender, receiver, server = pair.sender, pair.receiver, pair.server
    await _quiet(sender, server, "QUIET")
    heard: list[int] = []
    for joined_meanwhile in (False, True):
        server.kill("QUIET")  # on a cluster, the node of the room's slot
        await _until(lambda: not sender.hearing("QUIET", 0))
        if joined_meanwhile:
            receiver.subscribe("QUIET", lambda notice: heard.append(notice.version))
        server.start()
        await _until(lambda: sender.hearing("QUIET", 0) and receiver.hearing("QUIET", 0))
        await asyncio.sleep(0.3)  # both subscribed again
        before = await _publishes(server)  # counted anew: the server restarted
        await sender.publish(Notice("QUIET", "state", 50))
        await asyncio.sleep(0.2)
        assert await _publishes(server) == before + 1
        if joined_meanwhile:
            await _until(lambda: heard[-1:] == [50])
