"""Per-address limits: open sockets and newly opened rooms per client address (this process's count)."""

from __future__ import annotations

from collections import Counter, deque

from fastapi import FastAPI

from app.config import Settings
from app.rooms import Clock

ROOM_WINDOW_SECONDS = 3600.0


class AddressLimits:
    """At most ``max_sockets`` open sockets and ``max_rooms`` rooms opened per hour from one address, so
    one client cannot exhaust the server's sockets or fill the database."""

    def __init__(self, *, max_sockets: int, max_rooms: int, clock: Clock) -> None:
        self.max_sockets, self.max_rooms, self.clock = max_sockets, max_rooms, clock
        self.sockets: Counter[str] = Counter()
        self.rooms: dict[str, deque[float]] = {}

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


def address_limits(app: FastAPI, settings: Settings, clock: Clock) -> AddressLimits:
    """The app's limits, made on first use."""
    limits: AddressLimits | None = getattr(app.state, "address_limits", None)
    if limits is None:
        limits = AddressLimits(
            max_sockets=settings.max_sockets_per_address,
            max_rooms=settings.max_rooms_per_address,
            clock=clock,
        )
        app.state.address_limits = limits
    return limits
