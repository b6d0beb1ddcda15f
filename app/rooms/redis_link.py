"""How a process reaches Redis (``REDIS_URL``): one server, or a Redis Cluster named by ``redis+cluster://``.

Every name a room uses carries its code as a hash tag: its channel ``tt:room:{CODE}`` and its driver's lease
``tt:lease:{CODE}`` hash to one slot, so on a cluster both live on one shard, and a notice crosses that shard
only (sharded pub/sub: ``SPUBLISH`` / ``SSUBSCRIBE``, where plain ``PUBLISH`` is copied to every node over
the cluster bus). One server takes the same names with ``PUBLISH`` / ``SUBSCRIBE``; nothing in Redis
outlives the processes that wrote it, so the names may change from one version to the next.

A cluster is named by its scheme rather than found out by asking (``INFO cluster``): what a process does
then is decided before it connects, and a URL says what it is (``redis+cluster://`` or
``rediss+cluster://``, then any node's address; the others are learnt from it).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from app.config import is_redis_cluster, plain_redis_url

from .quiet import Hearers

CHANNEL_PREFIX = "tt:room:"
LEASE_PREFIX = "tt:lease:"


def node_url(url: str, host: str, port: int) -> str:
    """``url`` (plain) at another node's address, with the same user, password and scheme."""
    parts = urlsplit(url)
    credentials = parts.netloc.rpartition("@")[0]
    where = f"{host}:{port}" if ":" not in host else f"[{host}]:{port}"
    return urlunsplit((parts.scheme, f"{credentials}@{where}" if credentials else where, *parts[2:]))


def room_channel(code: str) -> str:
    return f"{CHANNEL_PREFIX}{{{code}}}"


def lease_key(code: str) -> str:
    return f"{LEASE_PREFIX}{{{code}}}"


def room_of(channel: str) -> str:
    """The code of a room's channel (``room_channel``'s inverse)."""
    return channel.removeprefix(CHANNEL_PREFIX).strip("{}")


class TopologyChanged(Exception):
    """A cluster's slot moved to another node (a failover, a reshard): its subscriptions are made again."""


@dataclass(eq=False)
class Shard:
    """One node: the client that publishes there, the subscription connection, and the rooms this process
    follows there. On one server there is one shard, which holds every channel."""

    name: str
    client: Any  # publishes (a client with retries: a pooled connection dead after a restart is replaced)
    listener: Any  # whose connection subscribes (a cluster's node: no retries, a lost node must be seen)
    sharded: bool  # SSUBSCRIBE (a cluster's node) or SUBSCRIBE
    owned: bool = False  # its clients are closed with it (a cluster's node; one server's is the link's)
    pubsub: Any = None  # redis.asyncio.client.PubSub, a new one at each connection
    rooms: set[str] = field(default_factory=set)  # codes whose channels are subscribed here
    hearers: Hearers = field(default_factory=Hearers)  # who else hears its rooms (this subscription's)
    seen: int = -1  # the broadcaster's room generation this shard last followed
    up: bool = False  # subscribed and read
    again: bool = False  # connected before: notices published while it was away are gone
    up_since: float = 0.0  # monotonic, when it was last subscribed

    def connect(self) -> None:
        self.pubsub = self.listener.pubsub(ignore_subscribe_messages=not self.sharded)
        self.rooms, self.seen = set(), -1
        self.hearers = Hearers()

    async def disconnect(self) -> None:
        self.up = False
        if self.pubsub is not None:
            with contextlib.suppress(Exception):
                await self.pubsub.aclose()
            self.pubsub = None

    async def subscribe(self, *channels: str) -> None:
        if not self.sharded:
            await self.pubsub.subscribe(*channels)
            return
        for channel in channels:  # one SSUBSCRIBE names channels of one slot only (else CROSSSLOT)
            await self.pubsub.ssubscribe(channel)

    async def unsubscribe(self, *channels: str) -> None:
        if not self.sharded:
            await self.pubsub.unsubscribe(*channels)
            return
        for channel in channels:
            await self.pubsub.sunsubscribe(channel)

    def data(self, message: dict[str, Any] | None) -> str | None:
        """A published message's text (None for anything else). Raises TopologyChanged when the node drops
        one of our channels of its own accord: its slot moved (Redis 7 says so with a ``sunsubscribe``)."""
        if message is None:
            return None
        kind = message.get("type")
        if kind in ("message", "smessage"):
            return str(message["data"])
        if kind == "sunsubscribe" and room_of(str(message["channel"])) in self.rooms:
            raise TopologyChanged(f"{message['channel']} left {self.name}")
        return None

    async def aclose(self) -> None:
        await self.disconnect()
        if self.owned:
            for client in (self.client, self.listener):
                with contextlib.suppress(Exception):
                    await client.aclose()


class Link:
    """The client every command goes through (``redis``: a ``Redis`` or a ``RedisCluster``), the publish
    command, and the shards where this process subscribes."""

    def __init__(self, url: str, *, max_connections: int, wait_seconds: float, retries: int) -> None:
        import redis.asyncio as aioredis
        from redis.asyncio.retry import Retry
        from redis.backoff import ExponentialWithJitterBackoff

        self.cluster = is_redis_cluster(url)
        self.url = plain_redis_url(url)
        self.retries = retries
        self.publish_command = "SPUBLISH" if self.cluster else "PUBLISH"
        retry = Retry(ExponentialWithJitterBackoff(base=0.01, cap=0.5), retries)
        timeouts = {"socket_connect_timeout": 1.0, "socket_timeout": 2.0}
        self.redis: Any
        if self.cluster:
            from redis.asyncio.cluster import RedisCluster

            # Connections per node are not capped: redis-py's cluster pool fails a command past its cap
            # instead of waiting; the publisher sends one pipeline at a time, so few are ever open.
            plain = plain_redis_url(url)
            self.redis = RedisCluster.from_url(plain, retry=retry, decode_responses=True, **timeouts)
        else:
            # A blocking pool: at saturation hundreds of moves publish at once, and each waits for one of the
            # pool's connections (a free one comes back within a round trip) instead of failing for want of
            # one. Its connections retry a command that meets a dead connection (Redis restarted: every
            # pooled connection is closed) on a new one, as the client's own default pool does.
            pool = aioredis.BlockingConnectionPool.from_url(
                url,
                max_connections=max_connections,
                timeout=wait_seconds,
                retry=retry,
                decode_responses=True,
                **timeouts,
            )
            self.redis = aioredis.Redis.from_pool(pool)  # closing the client closes its pool

    async def shards(self) -> list[Shard]:
        """One server's shard, or one per primary node of the cluster as it is now (the slots read again)."""
        if not self.cluster:
            return [Shard("", self.redis, self.redis, sharded=False)]
        await self._read_slots()
        return [
            Shard(
                node.name,
                self._node_client(node.host, node.port, retries=self.retries),
                self._node_client(node.host, node.port, retries=0),
                sharded=True,
                owned=True,
            )
            for node in self.redis.get_primaries()
        ]

    async def moved(self, names: set[str]) -> bool:
        """Whether the cluster's primary nodes are no longer ``names`` (a failover, a node added): read
        again; False when that cannot be known now."""
        try:
            await self._read_slots()
        except Exception:
            return False
        return {node.name for node in self.redis.get_primaries()} != names

    async def _read_slots(self) -> None:
        if self.redis._initialize:
            await self.redis.initialize()
        else:
            await self.redis.nodes_manager.initialize()

    def _node_client(self, host: str, port: int, *, retries: int) -> Any:
        """A node's own client, from the URL (user, password, TLS) at the node's address."""
        import redis.asyncio as aioredis
        from redis.asyncio.retry import Retry
        from redis.backoff import ExponentialWithJitterBackoff

        return aioredis.Redis.from_url(
            node_url(self.url, host, port),
            decode_responses=True,
            socket_connect_timeout=1.0,
            socket_timeout=2.0,
            retry=Retry(ExponentialWithJitterBackoff(base=0.01, cap=0.5), retries),
        )

    def shard_of(self, code: str) -> str | None:
        """The name of the shard that holds ``code``'s channel ('' on one server; None: not known now)."""
        if not self.cluster:
            return ""
        try:
            return str(self.redis.get_node_from_key(room_channel(code)).name)
        except Exception:  # the slots not read yet, or a slot no node holds
            return None

    async def ping(self) -> None:
        """Every node answers (a cluster's PING asks one node unless told otherwise)."""
        if self.cluster:
            await self.redis.execute_command("PING", target_nodes=self.redis.ALL_NODES)
        else:
            await self.redis.ping()

    async def aclose(self) -> None:
        await self.redis.aclose()
