"""Per-address limits: open sockets, new sockets per second and newly opened rooms per client address (this
process's count)."""

from __future__ import annotations

from collections import Counter, deque

from app.config import Settings
from app.rooms import Clock

ROOM_WINDOW_SECONDS = 3600.0


class AddressLimits:
    """At most ``max_sockets`` open sockets and ``max_rooms`` rooms opened per hour from one address, so
    one client cannot exhaust the server's sockets or fill the database."""

    def __init__(
        self, *, max_sockets: int, max_rooms: int, clock: Clock, connects_per_second: float = 5.0
    ) -> None:
        self.max_sockets, self.max_rooms, self.clock = max_sockets, max_rooms, clock
        self.sockets: Counter[str] = Counter()
        self.rooms: dict[str, deque[float]] = {}
        self.rate, self.burst = connects_per_second, 4 * connects_per_second
        self.connects: dict[str, tuple[float, float]] = {}  # address -> (tokens, when counted)

    @classmethod
    def from_settings(cls, settings: Settings, clock: Clock) -> AddressLimits:
        return cls(
            max_sockets=settings.max_sockets_per_address,
            max_rooms=settings.max_rooms_per_address,
            clock=clock,
            connects_per_second=settings.max_connects_per_second,
        )

    def connect(self, address: str) -> bool:
        """One new socket from ``address``: at ``rate`` a second on average, in bursts of ``burst``."""
        now = self.clock.monotonic()
        tokens, at = self.connects.get(address, (self.burst, now))
        tokens = min(self.burst, tokens + (now - at) * self.rate)
        if tokens < 1:
            self.connects[address] = (tokens, now)
            return False
        self.connects[address] = (tokens - 1, now)
        if len(self.connects) > 10_000:  # forget addresses whose bucket has refilled
            full = [a for a, (t, when) in self.connects.items() if t + (now - when) * self.rate >= self.burst]
            for stale in full:
                del self.connects[stale]
        return True

    def open_socket(self, address: str) -> bool:
        if self.sockets[address] >= self.max_sockets:
            return False
        self.sockets[address] += 1
        return True

    def close_socket(self, address: str) -> None:
        self.sockets[address] -= 1
        if self.sockets[address] <= 0:
            del self.sockets[address]

    def open_room(self, address: str) -> bool:
        now = self.clock.monotonic()
        times = self.rooms.setdefault(address, deque())
        while times and now - times[0] >= ROOM_WINDOW_SECONDS:
            times.popleft()
        if len(times) >= self.max_rooms:
            return False
        times.append(now)
        return True
