"""Time, injected: rooms ask a Clock for the time and for sleeps, so tests can use a fake one."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime:
        """The wall-clock time (UTC), for records."""
        ...

    def monotonic(self) -> float:
        """Seconds from an arbitrary start, for rates and timers."""
        ...

    async def sleep(self, seconds: float) -> None: ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)

    def monotonic(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)
