"""Rate limits inside a room: each seat may send a few chat lines, or lobby commands, per window; seat
requests have a budget per table and per client address."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable, Collection
from datetime import datetime

from app.config import Settings
from app.table import Change, Refusal, ReplaceSeat, Table

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


class SeatRequestGuard:
    """What seat requests may cost one table (each committed request is a new version, a write, and a state
    to every socket): at most ``per_table`` committed requests in all and ``per_address`` from one client
    address per ``WINDOW_SECONDS``, socket and REST alike; after the host declines a request its asker (their
    address and token) waits ``cool_down`` seconds before asking again. It also keeps since when each
    request has had no socket of its asker here, for the schedule (``unanswered_requests``). This process's
    count, like every per-address limit."""

    def __init__(self, *, per_table: int, per_address: int, cool_down: float, clock: Clock) -> None:
        self.per_table, self.per_address, self.cool_down, self.clock = (
            per_table,
            per_address,
            cool_down,
            clock,
        )
        self._table: deque[float] = deque()
        self._addresses: dict[str, deque[float]] = {}
        self._askers: dict[str, str] = {}  # token hash -> the address it asked from (for the cool-down)
        self._cooling: dict[str, float] = {}  # address or token hash -> until when (monotonic)
        # Token hash -> since when no socket is behind its request (at the latest: since it was first seen).
        self._unattended: dict[str, datetime] = {}

    def check(self, address: str, token_hash: str | None = None, *, awaits_host: bool = True) -> None:
        """Refuse (rate_limited) a request that would go over a budget, or that would wait for the host's
        answer while its asker is cooling down (a seat's former player needs no answer). Counts nothing:
        ``spent`` does."""
        now = self.clock.monotonic()
        self._cooling = {key: until for key, until in self._cooling.items() if until > now}
        cooling = address in self._cooling or (token_hash is not None and token_hash in self._cooling)
        if awaits_host and cooling:
            raise Refusal("rate_limited", "the host said no just now; wait a little before asking again")
        _expire(self._table, now)
        times = self._addresses.get(address)
        if times is not None:
            _expire(times, now)
        if len(self._table) >= self.per_table:
            raise Refusal("rate_limited", "slow down: this table has had too many seat requests lately")
        if times is not None and len(times) >= self.per_address:
            raise Refusal("rate_limited", "slow down: too many seat requests from your address")

    def guard(
        self, address: str, token_hash: str, make: Callable[[Table], Change | None]
    ) -> Callable[[Table], Change | None]:
        """``make`` (a seat request), checked against the budgets and counted when it would commit."""

        def checked(table: Table) -> Change | None:
            change = make(table)
            if change is not None:
                self.check(address, token_hash, awaits_host=_awaits_host(change))
                self.spent(address, token_hash)
            return change

        return checked

    def spent(self, address: str, token_hash: str) -> None:
        """A request from ``address`` was committed."""
        now = self.clock.monotonic()
        self._table.append(now)
        self._addresses.setdefault(address, deque()).append(now)
        self._askers.pop(token_hash, None)
        self._askers[token_hash] = address  # newest last: the oldest are forgotten first
        if len(self._askers) > 1000:
            self._askers = dict(list(self._askers.items())[-500:])
        if len(self._addresses) > 1000:  # forget addresses with nothing in the window
            self._addresses = {a: t for a, t in self._addresses.items() if _expire(t, now)}

    def declined(self, token_hash: str) -> None:
        """The host said no to this token's request: the asker (address and token) cools down."""
        until = self.clock.monotonic() + self.cool_down
        self._cooling[token_hash] = until
        if (address := self._askers.pop(token_hash, None)) is not None:
            self._cooling[address] = until
        self._unattended.pop(token_hash, None)

    def unattended(self, token_hash: str, since: datetime) -> None:
        """Nobody's socket is behind this token's request from ``since`` (made over REST, or its asker
        left without it being withdrawn)."""
        self._unattended[token_hash] = since

    def waiting(self, table: Table, attended: Collection[int], now: datetime) -> dict[int, datetime]:
        """Each bot's seat with a pending request whose asker has no socket at the table (``attended``: the
        seats whose asker has one, here or through another process), and since when. A request this
        process has heard nothing of counts from ``now``, when it first sees it (made on another process,
        or found in the store)."""
        pending = {
            s.claim.token_hash: s.index for s in table.seats if s.claim is not None and not s.claim.approved
        }
        self._unattended = {t: since for t, since in self._unattended.items() if t in pending}
        for token in pending:
            self._unattended.setdefault(token, now)
        return {index: self._unattended[token] for token, index in pending.items() if index not in attended}


def _awaits_host(change: Change) -> bool:
    """The change makes a request that waits for the host's answer."""
    write = change.write
    return isinstance(write, ReplaceSeat) and write.seat.claim is not None and not write.seat.claim.approved


def _expire(times: deque[float], now: float) -> bool:
    """Drop the times older than the window; True if any is left."""
    while times and now - times[0] > WINDOW_SECONDS:
        times.popleft()
    return bool(times)


def room_limits(settings: Settings, clock: Clock) -> tuple[dict[str, SeatLimiter], SeatRequestGuard]:
    """A room's limits: per seat, the chat (lines and reactions), the lobby's commands and a spectator's
    seat requests (by ``outcomes.Limit``'s names), and the table's seat request budgets."""
    seat_limits = {
        "chat": SeatLimiter(settings.chat_max_per_10s, clock, "chat lines"),
        "lobby": SeatLimiter(settings.lobby_max_per_10s, clock, "table commands"),
        "request": SeatLimiter(settings.lobby_max_per_10s, clock, "seat requests"),
    }
    guard = SeatRequestGuard(
        per_table=settings.table_requests_per_10s,
        per_address=settings.address_requests_per_10s,
        cool_down=settings.declined_cool_down_seconds,
        clock=clock,
    )
    return seat_limits, guard
