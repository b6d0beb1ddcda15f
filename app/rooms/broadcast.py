"""Fan-out of room notices to listeners: one small interface, in-process or over Redis pub/sub.

In one process, ``InProcessBroadcaster`` hands a notice to the room's listeners at once. With several
processes (``REDIS_URL``), ``RedisBroadcaster`` also publishes it on the room's Redis channel, and every
other process hands it to its own listeners; each renders per-seat views for its own sockets. A notice
that is lost (Redis restarted, a slow subscriber dropped) is repaired by the version: the next notice is
ahead of the room, which then reloads from the store; after a reconnection every loaded room does.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import uuid
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError

log = logging.getLogger(__name__)

CHANNEL_PREFIX = "tt:room:"
REDIS_CONNECTIONS = 32  # per process: publishes, leases, shared limits and the one subscription
REDIS_WAIT_SECONDS = 2.0  # the longest a publish waits for a free connection before it is given up
REDIS_RETRIES = 3  # a command is tried again on a new connection this many times
OUTBOX_LIMIT = 10_000  # notices waiting for Redis beyond this are dropped (the others resync by version)
FLUSH_SECONDS = 2.0  # at shutdown, the longest wait for the notices still to be published
RETRY_SECONDS = 0.5  # between attempts to reach Redis again
POLL_SECONDS = 0.1  # the subscriber's longest wait for a message before it looks at new subscriptions


@dataclass(frozen=True, slots=True)
class Notice:
    """Something every socket of a room must hear about. ``kind``: 'state', 'presence', 'here', 'chat' or
    'reaction'."""

    room: str
    kind: str
    version: int
    payload: dict[str, Any] = field(default_factory=dict)


Listener = Callable[[Notice], None]
Resync = Callable[[str | None], None]  # a room's code (None: every room) may have missed notices


class Broadcaster(Protocol):
    process_id: str
    shared: bool  # other processes hear these notices too

    def subscribe(self, room: str, listener: Listener) -> Callable[[], None]:
        """Listen to a room's notices; returns the function that stops listening."""
        ...

    async def publish(self, notice: Notice) -> None: ...

    async def close(self) -> None: ...


class InProcessBroadcaster:
    shared = False

    def __init__(self) -> None:
        self.process_id = uuid.uuid4().hex[:12]
        self._own = f'{{"from":"{self.process_id}",'  # how this process's notices begin (``encode_notice``)
        self._listeners: dict[str, list[Listener]] = defaultdict(list)

    def subscribe(self, room: str, listener: Listener) -> Callable[[], None]:
        self._listeners[room].append(listener)

        def unsubscribe() -> None:
            listeners = self._listeners.get(room)
            if listeners and listener in listeners:
                listeners.remove(listener)
                if not listeners:
                    del self._listeners[room]

        return unsubscribe

    def rooms(self) -> set[str]:
        return set(self._listeners)

    async def publish(self, notice: Notice) -> None:
        self.deliver(notice)

    def deliver(self, notice: Notice) -> None:
        for listener in list(self._listeners.get(notice.room, ())):
            try:
                listener(notice)
            except Exception:  # one odd notice (or a bug) costs that notice, never the subscription
                log.exception("a listener of room %s failed on a %.20r notice", notice.room, notice.kind)

    async def close(self) -> None:
        self._listeners.clear()


def encode_notice(notice: Notice, process_id: str, key: bytes = b"") -> str:
    """A notice as published on Redis (orjson: every committed move of every table is encoded here); with a
    ``key``, prefixed by its HMAC-SHA256 and a dot."""
    body = orjson.dumps(
        {
            "from": process_id,
            "room": notice.room,
            "kind": notice.kind,
            "version": notice.version,
            "payload": notice.payload,
        },
        option=orjson.OPT_NON_STR_KEYS,
    ).decode()
    return f"{_signature(key, body)}.{body}" if key else body


def _signature(key: bytes, body: str) -> str:
    return hmac.new(key, body.encode(), hashlib.sha256).hexdigest()


class _Envelope(BaseModel):
    """A notice as it travels on Redis, read strictly (what each kind's payload may hold is the room's to
    judge: ``app.rooms.peers``)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    sender: str = Field(alias="from", min_length=1, max_length=32)
    room: str = Field(min_length=1, max_length=16)
    kind: str = Field(min_length=1, max_length=16)
    version: int = Field(ge=0)
    payload: dict[str, Any]


def decode_notice(data: str, key: bytes = b"") -> tuple[str, Notice]:
    """(the publishing process, the notice); ValueError for anything that is not a notice (or, with a
    ``key``, not signed with it)."""
    if key:
        signature, _, data = data.partition(".")
        if not hmac.compare_digest(signature, _signature(key, data)):
            raise ValueError("a notice without a good signature")
    try:
        raw = _Envelope.model_validate_json(data)
    except ValidationError as exc:
        raise ValueError(f"not a notice: {exc.error_count()} problem(s)") from None
    return raw.sender, Notice(raw.room, raw.kind, raw.version, raw.payload)


class RedisBroadcaster:
    """Local listeners hear a notice at once; other processes hear it through the room's Redis channel.

    One task owns the subscription connection: it subscribes to the channels of the rooms loaded here, reads
    notices from other processes, and after losing Redis connects again, subscribes again and asks every
    room to resync from the store (``on_resync``), since notices published meanwhile are gone.
    """

    shared = True

    def __init__(self, url: str, *, on_resync: Resync | None = None, key: str = "") -> None:
        import redis.asyncio as aioredis
        from redis.asyncio.retry import Retry
        from redis.backoff import ExponentialWithJitterBackoff

        self.process_id = uuid.uuid4().hex[:12]
        self._own = f'{{"from":"{self.process_id}",'  # how this process's notices begin (``encode_notice``)
        self._key = key.encode()  # signs and checks every notice on Redis (empty: unsigned)
        # A blocking pool: at saturation hundreds of moves publish at once, and each waits for one of the
        # pool's connections (a free one comes back within a round trip) instead of failing for want of one.
        # Its connections retry a command that meets a dead connection (Redis restarted: every pooled
        # connection is closed) on a new one, as the client's own default pool does.
        pool = aioredis.BlockingConnectionPool.from_url(
            url,
            max_connections=REDIS_CONNECTIONS,
            timeout=REDIS_WAIT_SECONDS,
            retry=Retry(ExponentialWithJitterBackoff(base=0.01, cap=0.5), REDIS_RETRIES),
            decode_responses=True,
            socket_connect_timeout=1.0,
            socket_timeout=2.0,
        )
        self.redis = aioredis.Redis.from_pool(pool)  # closing the client closes its pool
        self.on_resync: Resync = on_resync or (lambda _code: None)
        self.up = False  # subscribed and listening
        self.reconnects = 0
        self._local = InProcessBroadcaster()
        self._subscribed: set[str] = set()
        self._rooms_changed = False  # rooms loaded or closed since the subscriber last looked
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        self._outbox: list[tuple[str, str]] = []  # (channel, message), in the order they were published
        self._outbox_ready = asyncio.Event()
        self._publisher: asyncio.Task[None] | None = None
        self._sending = False  # a batch is on its way to Redis
        self.dropped = 0  # notices not published (Redis away or too far behind)

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._listen(), name="redis-subscriber")
            self._publisher = asyncio.create_task(self._publish_outbox(), name="redis-publisher")

    def subscribe(self, room: str, listener: Listener) -> Callable[[], None]:
        self._rooms_changed = True
        unsubscribe = self._local.subscribe(room, listener)

        def stop() -> None:
            self._rooms_changed = True
            unsubscribe()

        return stop

    async def publish(self, notice: Notice) -> None:
        """Deliver here at once; queue for the other processes. One task sends what queued meanwhile in one
        pipeline (one connection, one round trip), in order, so a burst of moves costs one send, not one
        each, and no room waits for Redis under its lock."""
        self._local.deliver(notice)
        if not self.up or self._closing:  # Redis is away: the others resync from the store once it is back
            return
        if len(self._outbox) >= OUTBOX_LIMIT:
            self.dropped += 1
            return
        self._outbox.append((CHANNEL_PREFIX + notice.room, encode_notice(notice, self.process_id, self._key)))
        self._outbox_ready.set()

    async def _publish_outbox(self) -> None:
        # Not ``while True``: redis-py sometimes swallows a cancellation that lands mid-command, and the loop
        # must still end when closed (close() wakes it).
        while not self._closing:
            await self._outbox_ready.wait()
            self._outbox_ready.clear()
            batch, self._outbox = self._outbox, []
            if not batch:
                continue
            self._sending = True
            try:
                async with self.redis.pipeline(transaction=False) as pipe:
                    for channel, message in batch:
                        pipe.publish(channel, message)
                    await pipe.execute()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the subscriber notices too, reconnects and resyncs everyone
                self.dropped += len(batch)
                log.warning("could not publish %d notice(s) to Redis: %s", len(batch), exc)
            finally:
                self._sending = False

    async def ping(self) -> None:
        await self.redis.ping()

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
            await self.redis.aclose()

    async def _listen(self) -> None:
        first = True
        while not self._closing:
            pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                self._subscribed = set()
                # A channel of its own, so there is always a subscription to read from.
                await pubsub.subscribe(f"tt:process:{self.process_id}")
                await self._follow_rooms(pubsub, resync_new=False)
                self.up = True
                if not first:
                    self.reconnects += 1
                    log.warning("Redis is back: resubscribed; every room resyncs from the store")
                    self.on_resync(None)
                first = False
                while not self._closing:  # not only the cancellation: redis-py may swallow it
                    await self._follow_rooms(pubsub, resync_new=True)
                    message = await pubsub.get_message(timeout=POLL_SECONDS)
                    if message is not None and message.get("type") == "message":
                        self._received(str(message["data"]))
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if self.up:
                    log.warning("lost Redis (%s); reconnecting", exc)
                self.up = False
                await asyncio.sleep(RETRY_SECONDS)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()

    async def _follow_rooms(self, pubsub: Any, *, resync_new: bool) -> None:
        """Subscribe to the channels of rooms loaded since, leave those of rooms gone."""
        if not self._rooms_changed and resync_new:
            return
        self._rooms_changed = False
        wanted = self._local.rooms()
        new, gone = wanted - self._subscribed, self._subscribed - wanted
        if new:
            await pubsub.subscribe(*(CHANNEL_PREFIX + code for code in new))
            self._subscribed |= new
            if resync_new:  # a notice published between the room's load and now was not heard
                for code in new:
                    self.on_resync(code)
        if gone:
            await pubsub.unsubscribe(*(CHANNEL_PREFIX + code for code in gone))
            self._subscribed -= gone

    def _received(self, data: str) -> None:
        body = data.partition(".")[2] if self._key else data
        if body.startswith(self._own):  # ours, back from Redis (delivered here when published): not read
            return
        try:
            sender, notice = decode_notice(data, self._key)
        except ValueError:
            log.warning("ignored a malformed notice on Redis")
            return
        if sender != self.process_id:  # our own were delivered when published
            self._local.deliver(notice)
