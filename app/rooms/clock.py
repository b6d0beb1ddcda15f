"""Time, injected: rooms ask a Clock for the time and for sleeps, so tests can use a fake one; a real
process's tests move its clock on through a file (``OffsetClock``). How long another process has been silent
is measured on ``steady``, which no such move touches."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime:
        """The wall-clock time (UTC), for records."""
        ...

    def monotonic(self) -> float:
        """Seconds from an arbitrary start, for rates and timers."""
        ...

    def steady(self) -> float:
        """Seconds from an arbitrary start on a clock no test moves (``OffsetClock``'s moves leave it alone):
        how long another process has been silent. Processes read a moved clock a moment apart, so a move on
        ``monotonic`` would make every peer seem silent since the move (dead, and its sockets forgotten)."""
        ...

    async def sleep(self, seconds: float) -> None: ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)

    def monotonic(self) -> float:
        return time.monotonic()

    def steady(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


class OffsetClock(SystemClock):
    """The system's clock, moved on by the seconds written in a file (``CLOCK_OFFSET_FILE``, for the tests of
    real processes: the hours of a paced table pass at once, for every process reading the same file). The
    file is read at most every 50 ms; a missing or unreadable file counts as no offset. Sleeps stay real: the
    paced waker (``PACE_WAKE_SECONDS``) notices the tables a jump made due. ``steady`` stays real too: a
    process hears its peers' heartbeats every half second whatever the file says."""

    def __init__(self, path: str) -> None:
        self.path = Path(path)
        self._read_at = float("-inf")
        self._offset = 0.0

    def offset(self) -> float:
        if time.monotonic() - self._read_at >= 0.05:
            self._read_at = time.monotonic()
            try:
                self._offset = float(self.path.read_text().strip() or 0)
            except (OSError, ValueError):
                self._offset = 0.0
        return self._offset

    def now(self) -> datetime:
        return super().now() + timedelta(seconds=self.offset())

    def monotonic(self) -> float:
        return super().monotonic() + self.offset()


def clock_for(offset_file: str) -> Clock:
    """The system's clock, or with ``CLOCK_OFFSET_FILE`` set (tests only) one moved on by that file."""
    return OffsetClock(offset_file) if offset_file else SystemClock()
