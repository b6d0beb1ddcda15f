"""Rate limits inside a room: each seat may send a few chat lines, or lobby commands, per window."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable

from app.table import Refusal

from .clock import Clock

WINDOW_SECONDS = 10.0


class SeatLimiter:
    """At most ``per_window`` messages of one kind from each seat per ``WINDOW_SECONDS``."""

    def __init__(self, per_window: int, clock: Clock, what: str) -> None:
        self.per_window, self.clock, self.what = per_window, clock, what
        self._times: dict[int, deque[float]] = {}

    def check(self, seat: int) -> None:
        """Count one message from ``seat``, or refuse it (rate_limited) when it sent too many lately."""
        now = self.clock.monotonic()
        times = self._times.setdefault(seat, deque())
        while times and now - times[0] > WINDOW_SECONDS:
            times.popleft()
        if len(times) >= self.per_window:
            raise Refusal("rate_limited", f"slow down: too many {self.what}")
        times.append(now)

    def forget(self, seat: int) -> None:
        """Drop what was counted for ``seat`` (a socket counted on its own went away)."""
        self._times.pop(seat, None)


class Throttle:
    """Runs ``action`` at most once per ``interval`` seconds: at once when it has not run lately, else once
    at the end of the interval for every call made meanwhile (a burst becomes one run)."""

    def __init__(self, interval: float, clock: Clock, action: Callable[[], Awaitable[None]]) -> None:
        self.interval, self.clock, self.action = interval, clock, action
        self._last = float("-inf")
        self._pending: asyncio.Task[None] | None = None

    async def __call__(self) -> bool:
        """Run now (True), or make sure one run follows at the end of the interval (False)."""
        wait = self._last + self.interval - self.clock.monotonic()
        if wait <= 0 and (self._pending is None or self._pending.done()):
            self._last = self.clock.monotonic()
            await self.action()
            return True
        if self._pending is None or self._pending.done():
            self._pending = asyncio.create_task(self._later(self._last + self.interval))
        return False

    async def _later(self, due: float) -> None:
        await self.clock.sleep(max(0.0, due - self.clock.monotonic()))
        self._last = self.clock.monotonic()
        await self.action()

    async def close(self) -> None:
        if self._pending is not None:
            self._pending.cancel()
            await asyncio.gather(self._pending, return_exceptions=True)
