"""Finished games' replays and exports, encoded once: an LRU of JSON bytes bounded in size, one build per
game at a time, and a per-address limit on the requests that read them."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable

from starlette.requests import Request

from app.rooms import Clock

from .ws import TokenBucket

ADDRESSES_KEPT = 10_000  # past this many addresses, those whose bucket has refilled are forgotten


class RecordCache:
    """Encoded records of finished games (they never change), least recently used dropped first so the
    bytes held stay at most ``max_bytes``. Requests for a record being built wait for that one build."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.bytes_held = 0
        self._items: OrderedDict[tuple[str, str], bytes] = OrderedDict()
        self._building: dict[tuple[str, str], asyncio.Future[bytes]] = {}  # builds under way

    def get(self, key: tuple[str, str]) -> bytes | None:
        body = self._items.get(key)
        if body is not None:
            self._items.move_to_end(key)
        return body

    def put(self, key: tuple[str, str], body: bytes) -> None:
        if len(body) > self.max_bytes or key in self._items:
            return
        self._items[key] = body
        self.bytes_held += len(body)
        while self.bytes_held > self.max_bytes:
            _, dropped = self._items.popitem(last=False)
            self.bytes_held -= len(dropped)

    async def get_or_build(self, key: tuple[str, str], build: Callable[[], Awaitable[bytes]]) -> bytes:
        """The cached bytes, or ``build()``'s (then cached); callers arriving meanwhile share that build,
        which runs as its own task so that a caller going away does not stop it for the others."""
        if (body := self.get(key)) is not None:
            return body
        task = self._building.get(key)
        if task is None:
            task = self._building[key] = asyncio.ensure_future(self._build(key, build))
        return await asyncio.shield(task)

    async def _build(self, key: tuple[str, str], build: Callable[[], Awaitable[bytes]]) -> bytes:
        try:
            body = await build()
        finally:
            del self._building[key]
        self.put(key, body)
        return body


class AddressRate:
    """``per_minute`` requests a minute from one client address on average, in bursts of a third of it."""

    def __init__(self, per_minute: int, clock: Clock) -> None:
        self.rate, self.burst, self.clock = per_minute / 60, max(1.0, per_minute / 3), clock
        self._buckets: dict[str, TokenBucket] = {}

    def allow(self, address: str) -> bool:
        bucket = self._buckets.get(address)
        if bucket is None:
            if len(self._buckets) >= ADDRESSES_KEPT:
                self._forget_refilled()
            bucket = self._buckets[address] = TokenBucket(self.rate, self.burst, self.clock)
        return bucket.allow()

    def _forget_refilled(self) -> None:
        now = self.clock.monotonic()
        for address, bucket in list(self._buckets.items()):
            if bucket.tokens + (now - bucket.at) * self.rate >= self.burst:
                del self._buckets[address]


def address_allowed(request: Request, name: str, per_minute: int, clock: Clock) -> bool:
    """Whether the request's client address may spend one of the app's per-address budget ``name`` (an
    ``AddressRate`` on the app's state, made at its first use: no await in between, so no race)."""
    rate: AddressRate | None = getattr(request.app.state, name, None)
    if rate is None:
        rate = AddressRate(per_minute, clock)
        setattr(request.app.state, name, rate)
    return rate.allow(request.client.host if request.client else "unknown")
