"""Who drives a table's bots and timers: in one process always this one; with Redis, the holder of the
table's lease (``SET key process NX PX ttl``, renewed while held, released when its sockets are gone). The
key, ``tt:lease:{CODE}``, lives in the slot of the table's code (``redis_link``): on a Redis Cluster each
script touches that one key, and a pipeline of renewals is split by node.

The lease spares the other processes the work; it is not what keeps a move from being applied twice. That
is the store's version check, so two processes that both believe they hold a lease for a moment (a pause
longer than the lease) still commit at most one move per version.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any, Protocol

from .redis_link import lease_key

log = logging.getLogger(__name__)

_RENEW = """
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end
return 0
"""
_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0
"""


class Leases(Protocol):
    poll_seconds: float  # how often a process without the lease asks again while something is due

    def holds(self, code: str) -> bool:
        """This process surely holds ``code``'s lease now (so acquiring it takes nothing over)."""
        ...

    async def acquire(self, code: str) -> bool:
        """True if this process drives ``code`` now (it held or just took the lease)."""
        ...

    async def release(self, code: str) -> None: ...

    async def close(self) -> None: ...


class SoleProcess:
    """One process: it drives every table it has loaded, with or without sockets."""

    poll_seconds = 1.0

    def holds(self, code: str) -> bool:
        return True

    async def acquire(self, code: str) -> bool:
        return True

    async def release(self, code: str) -> None:
        return None

    async def close(self) -> None:
        return None


class RedisLeases:
    """Leases in Redis, renewed together by one task every quarter of their life. ``hearing``: whether this
    process hears the others now (their heartbeats say who is at each table through them); while it does
    not, it takes no lease and drives nothing, lest it play for a person connected elsewhere (on a Redis
    Cluster a lease's node may answer while the heartbeats' node is away)."""

    def __init__(
        self, redis: Any, process_id: str, ttl_ms: int, hearing: Callable[[], bool] = lambda: True
    ) -> None:
        self.redis, self.process_id, self.ttl_ms, self.hearing = redis, process_id, ttl_ms, hearing
        self.poll_seconds = ttl_ms / 4000
        self.held: dict[str, float] = {}  # code -> monotonic time until which it is surely ours
        self._task: asyncio.Task[None] | None = None
        self._stopping = False  # close() is stopping the renewals (redis-py may swallow the cancellation)

    def holds(self, code: str) -> bool:
        return self.held.get(code, 0.0) > time.monotonic()

    async def acquire(self, code: str) -> bool:
        if not self.hearing():  # kept in Redis until it runs out, unrenewed: then anyone may take it
            self.held.pop(code, None)
            return False
        if self.holds(code):
            return True
        started = time.monotonic()
        try:
            taken = await self.redis.set(lease_key(code), self.process_id, nx=True, px=self.ttl_ms)
            if not taken:
                taken = await self.redis.eval(_RENEW, 1, lease_key(code), self.process_id, self.ttl_ms)
        except Exception as exc:  # Redis away: nobody takes new leases; the store still fences moves
            log.warning("could not take the lease of %s: %s", code, exc)
            return False
        if not taken:
            self.held.pop(code, None)
            return False
        self.held[code] = started + self.ttl_ms / 1000
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._renew(), name="lease-renewal")
        return True

    async def release(self, code: str) -> None:
        if self.held.pop(code, None) is None:
            return
        with contextlib.suppress(Exception):
            await self.redis.eval(_RELEASE, 1, lease_key(code), self.process_id)

    async def close(self) -> None:
        """Stop renewing and release every lease. The renewal loop also looks at ``_stopping``: redis-py
        sometimes swallows a cancellation that lands mid-command, and a loop relying on it alone went on
        renewing forever, so that close(), and a process's shutdown, never returned."""
        if self._task is not None:
            self._stopping = True
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._stopping = False
        for code in list(self.held):
            await self.release(code)

    async def _renew(self) -> None:
        while self.held and not self._stopping:
            await asyncio.sleep(self.ttl_ms / 4000)
            codes = list(self.held)
            started = time.monotonic()
            try:
                async with self.redis.pipeline(transaction=False) as pipe:
                    for code in codes:
                        pipe.eval(_RENEW, 1, lease_key(code), self.process_id, self.ttl_ms)
                    renewed = await pipe.execute()
            except Exception as exc:  # kept until they run out; then the driver stops acting
                if self._stopping:
                    return
                log.warning("could not renew %d leases: %s", len(codes), exc)
                continue
            for code, ok in zip(codes, renewed, strict=True):
                if code not in self.held:
                    continue
                if ok:
                    self.held[code] = started + self.ttl_ms / 1000
                else:
                    log.warning("lost the lease of %s", code)
                    del self.held[code]
