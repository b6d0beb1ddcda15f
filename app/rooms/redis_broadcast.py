"""Notices over Redis (``REDIS_URL``): ``RedisBroadcaster``, the ``Broadcaster`` of several processes.

Local listeners hear a notice at once; other processes hear it through the room's channel, on one Redis
server or on the node of its slot in a Redis Cluster (``redis_link``). What a notice looks like on Redis
(signed, read strictly) is ``broadcast``'s.

A room no other process hears is kept quiet (``quiet``): its notices are not published for nobody.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from .broadcast import (
    EVERY_ROOM,
    InProcessBroadcaster,
    Listener,
    Notice,
    Resync,
    decode_notice,
    encode_notice,
)
from .redis_link import Link, Shard, TopologyChanged, room_channel, room_of

log = logging.getLogger(__name__)

REDIS_CONNECTIONS = 32  # per process: publishes, leases, shared limits and the one subscription
REDIS_WAIT_SECONDS = 2.0  # the longest a publish waits for a free connection before it is given up
REDIS_RETRIES = 3  # a command is tried again on a new connection this many times
OUTBOX_LIMIT = 10_000  # notices waiting for Redis beyond this are dropped (the others resync by version)
FLUSH_SECONDS = 2.0  # at shutdown, the longest wait for the notices still to be published
RETRY_SECONDS = 0.5  # between attempts to reach Redis again
POLL_SECONDS = 0.1  # the subscriber's longest wait for a message before it looks at new subscriptions
HELLO = "hello"  # the notice a process publishes on a room's channel when it starts to hear it (``quiet``)


class RedisBroadcaster:
    """Local listeners hear a notice at once; other processes hear it through the room's Redis channel.

    Notices travel by shard (``redis_link``): one server is one shard; a cluster has one per primary node,
    which holds the channels of the rooms whose slots it serves. Each shard has a task of its own that
    subscribes to the channels of the rooms loaded here on it, reads what other processes publish there, and
    after losing its node connects again, subscribes again and asks its rooms to resync from the store
    (``on_resync``), since notices published meanwhile are gone. A shard away loses only its own rooms'
    notices: the others' go on. When the cluster's nodes change (a failover, a slot moved), every shard is
    made again from the slots read anew.
    """

    shared = True

    def __init__(self, url: str, *, on_resync: Resync | None = None, key: str = "") -> None:
        self.process_id = uuid.uuid4().hex[:12]
        self._own = f'{{"from":"{self.process_id}",'  # how this process's notices begin (``encode_notice``)
        self._key = key.encode()  # signs and checks every notice on Redis (empty: unsigned)
        self.link = Link(
            url, max_connections=REDIS_CONNECTIONS, wait_seconds=REDIS_WAIT_SECONDS, retries=REDIS_RETRIES
        )
        self.redis: Any = self.link.redis  # commands on keys (leases) and pings
        self.on_resync: Resync = on_resync or (lambda _code: None)
        self.reconnects = 0
        self._local = InProcessBroadcaster()
        self._generation = 0  # moves on when a room is loaded or closed here; each shard follows it
        self._shards: dict[str, Shard] = {}  # by name, as the cluster's slots were last read
        self._shard_names: dict[str, str | None] = {}  # code -> the name of its channel's shard (a cache)
        self._been_up: set[str] = set()  # shards (by name) that were subscribed once
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        self._outbox: list[tuple[str, str, str]] = []  # (shard, room, message), in publishing order
        self._outbox_ready = asyncio.Event()
        self._publisher: asyncio.Task[None] | None = None
        self._sending = False  # a batch is on its way to Redis
        self.dropped = 0  # notices not published (Redis away or too far behind)
        self.kept_back = 0  # notices not published because no other process heard their room

    @property
    def up(self) -> bool:
        """Subscribed and listening on every shard."""
        return bool(self._shards) and all(shard.up for shard in self._shards.values())

    def hearing(self, room: str, settle: float) -> bool:
        """The notices of ``room`` are heard here: its shard is subscribed, and if it was away, for at least
        ``settle`` seconds since (what was said meanwhile, as heartbeats, has been said again)."""
        shard = self._shard(room)
        if shard is None or not shard.up:
            return False
        return not shard.again or time.monotonic() - shard.up_since >= settle

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._listen(), name="redis-subscriber")
            self._publisher = asyncio.create_task(self._publish_outbox(), name="redis-publisher")

    def subscribe(self, room: str, listener: Listener) -> Callable[[], None]:
        self._generation += 1
        unsubscribe = self._local.subscribe(room, listener)

        def stop() -> None:
            self._generation += 1
            unsubscribe()
            if not self._local.listened(room):  # the cache holds the rooms loaded here, no more
                self._shard_names.pop(room, None)

        return stop

    async def publish(self, notice: Notice) -> None:
        """Deliver here at once; queue for the other processes. One task sends what queued meanwhile in one
        pipeline a shard (one connection, one round trip), in order, so a burst of moves costs one send, not
        one each, and no room waits for Redis under its lock."""
        self._local.deliver(notice)
        shard = self._shard(notice.room)
        if shard is None or not shard.up or self._closing:  # its shard is away: the others resync later
            return
        if shard.hearers.keep_back(notice):  # no other process hears this room (until one says hello)
            self.kept_back += 1
            return
        self._queue(shard, notice)

    def _queue(self, shard: Shard, notice: Notice) -> None:
        if len(self._outbox) >= OUTBOX_LIMIT:
            self.dropped += 1
            return
        message = encode_notice(notice, self.process_id, self._key)
        self._outbox.append((shard.name, notice.room, message))
        self._outbox_ready.set()

    def _shard(self, room: str) -> Shard | None:
        if not self._shards:
            return None
        if room in self._shard_names:
            name = self._shard_names[room]
        else:
            name = self.link.shard_of(room)
            if self._local.listened(room):  # kept while the room is loaded here (``subscribe``'s stop)
                self._shard_names[room] = name
        return None if name is None else self._shards.get(name)

    async def _publish_outbox(self) -> None:
        # Not ``while True``: redis-py sometimes swallows a cancellation that lands mid-command, and the loop
        # must still end when closed (close() wakes it).
        while not self._closing:
            await self._outbox_ready.wait()
            self._outbox_ready.clear()
            batch, self._outbox = self._outbox, []
            if not batch:
                continue
            by_shard: dict[str, list[tuple[str, str]]] = defaultdict(list)
            for name, room, message in batch:
                by_shard[name].append((room, message))
            self._sending = True
            try:
                await asyncio.gather(*(self._send(name, notices) for name, notices in by_shard.items()))
            finally:
                self._sending = False

    async def _send(self, name: str, notices: list[tuple[str, str]]) -> None:
        shard = self._shards.get(name)
        try:
            if shard is None:
                raise ConnectionError(f"no shard {name!r} now")
            subscription, hearers = shard.pubsub, shard.hearers
            spoken_before, proven = hearers.before_publishing([room for room, _ in notices])
            async with shard.client.pipeline(transaction=False) as pipe:
                for room, message in notices:
                    pipe.execute_command(self.link.publish_command, room_channel(room), message)
                receivers = await pipe.execute()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # its subscriber notices too, reconnects and resyncs its rooms
            self.dropped += len(notices)
            log.warning("could not publish %d notice(s) to Redis: %s", len(notices), exc)
            return
        if shard.pubsub is subscription:  # not subscribed anew meanwhile (what was proven still holds)
            for (room, _), was_proven, heard_by in zip(notices, proven, receivers, strict=True):
                hearers.published(
                    room, heard_by, spoken_before=spoken_before, proven=was_proven, loaded=room in shard.rooms
                )

    async def ping(self) -> None:
        """Every node answers (one server, or each node of a cluster: by default its PING asks one)."""
        await self.link.ping()

    async def close(self) -> None:
        self._closing = True
        if self._publisher is not None:  # what was published before the end still reaches the others
            loop = asyncio.get_running_loop()
            deadline = loop.time() + FLUSH_SECONDS
            while (self._outbox or self._sending) and self.up and loop.time() < deadline:
                await asyncio.sleep(0.01)
            self._outbox_ready.set()  # a loop whose cancellation redis-py swallowed wakes and sees _closing
            self._publisher.cancel()
            await asyncio.gather(self._publisher, return_exceptions=True)
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        await self._local.close()
        with contextlib.suppress(Exception):
            await self.link.aclose()

    async def _listen(self) -> None:
        """Make the shards (the cluster's slots read anew) and serve each; again when the nodes change."""
        rebuilt = False
        while not self._closing:
            shards: list[Shard] = []
            tasks: list[asyncio.Task[None]] = []
            try:
                shards = await self.link.shards()
                for shard in shards:
                    shard.again = rebuilt  # rooms may have moved between nodes: every one resyncs
                self._shard_names = {}
                self._shards = {shard.name: shard for shard in shards}
                rebuilt = True
                tasks = [asyncio.create_task(self._serve(s), name=f"redis-shard {s.name}") for s in shards]
                done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    task.result()  # TopologyChanged (a shard ends without an error only when closing)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("Redis: %s: %s; connecting again", type(exc).__name__, exc)
                await asyncio.sleep(RETRY_SECONDS)
            finally:
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
                for shard in shards:
                    await shard.aclose()

    async def _serve(self, shard: Shard) -> None:
        """Keep ``shard`` subscribed to the channels of the rooms loaded here on it and hand on what other
        processes publish there; connect again when its node is lost."""
        while not self._closing:
            try:
                shard.connect()
                if not shard.sharded:  # a channel of its own, so there is always a subscription to read
                    await shard.subscribe(f"tt:process:{self.process_id}")
                await self._follow_rooms(shard, resync_new=False)
                shard.up, shard.up_since = True, time.monotonic()
                if shard.again or shard.name in self._been_up:
                    shard.again = True
                    self.reconnects += 1
                    log.warning("Redis is back%s: resubscribed; its rooms resync from the store", _at(shard))
                    if shard.sharded:
                        for code in shard.rooms:
                            self.on_resync(code)
                    else:
                        self.on_resync(None)
                self._been_up.add(shard.name)
                while not self._closing:  # not only the cancellation: redis-py may swallow it
                    await self._follow_rooms(shard, resync_new=True)
                    if not shard.pubsub.subscribed:  # a node holding none of our rooms: nothing to read
                        await asyncio.sleep(POLL_SECONDS)
                        continue
                    message = await shard.pubsub.get_message(timeout=POLL_SECONDS)
                    data = shard.data(message)
                    if data is not None:
                        self._received(shard, room_of(str(message["channel"])), data)
            except (asyncio.CancelledError, TopologyChanged):
                raise
            except Exception as exc:
                if shard.up:
                    log.warning("lost Redis%s (%s: %s); reconnecting", _at(shard), type(exc).__name__, exc)
                await shard.disconnect()
                if shard.sharded and await self.link.moved(set(self._shards)):
                    raise TopologyChanged("the cluster's nodes changed") from exc
                await asyncio.sleep(RETRY_SECONDS)

    async def _follow_rooms(self, shard: Shard, *, resync_new: bool) -> None:
        """Subscribe to the channels of rooms loaded since on ``shard``, leave those of rooms gone."""
        if shard.seen == self._generation:
            return
        shard.seen = self._generation
        wanted = {code for code in self._local.rooms() if self._shard(code) is shard}
        new, gone = wanted - shard.rooms, shard.rooms - wanted
        if new:
            await shard.subscribe(*(room_channel(code) for code in new))
            shard.rooms |= new
            for code in new - {EVERY_ROOM}:  # whoever kept the room quiet publishes again
                self._queue(shard, Notice(code, HELLO, 0))
            if resync_new:  # a notice published between the room's load and now was not heard
                for code in new:
                    self.on_resync(code)
        if gone:
            await shard.unsubscribe(*(room_channel(code) for code in gone))
            shard.rooms -= gone
            for code in gone:
                shard.hearers.forget(code)

    def _received(self, shard: Shard, room: str, data: str) -> None:
        """A message on ``room``'s channel of ``shard``."""
        body = data.partition(".")[2] if self._key else data
        if body.startswith(self._own):  # ours, back from Redis (delivered here when published): not read,
            shard.hearers.echoed(room)  # but it proves Redis counts us among the channel's receivers
            return
        try:
            sender, notice = decode_notice(data, self._key)
        except ValueError:
            log.warning("ignored a malformed notice on Redis")
            return
        if sender == self.process_id:  # our own were delivered when published
            return
        for kept in shard.hearers.spoken(room):  # a room kept quiet is said again, from what was kept back
            self._queue(shard, kept)
        if notice.kind != HELLO:
            self._local.deliver(notice)


def _at(shard: Shard) -> str:
    return f" ({shard.name})" if shard.name else ""
