"""The nudge when it is your turn: a queue that never makes its caller wait, and workers that look up the
seat's subscriptions, claim the turn for each (so one process, once, notifies it) and push, each push with
a timeout and within its subscription's hourly budget."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from app.config import Settings
from app.metrics import count_push
from app.store import PushSubscription, Store
from app.store.push import Kind

from . import texts
from .addresses import resolve as default_resolve
from .keys import VapidKey, load_key
from .sender import Outcome, Resolve, Sender, Urgency

log = logging.getLogger(__name__)

WORKERS = 4  # pushes under way at once: one push service that hangs holds one of them, for its timeout
QUEUE_SIZE = 1000  # waiting nudges and pushes; past this, new ones are dropped (counted and logged)
PER_HOUR = 30  # pushes to one endpoint (a browser's subscription) per hour
REMINDER_SECONDS = 3600  # the last reminder comes when this much of the turn is left


@dataclass(frozen=True, slots=True)
class Nudge:
    """Notify the seat (``token_hash`` at table ``code``) that turn ``key`` is theirs (``kind="turn"``) or
    about to run out (``"reminder"``); ``ttl``: seconds it is worth delivering (the time left); ``due_at``:
    the turn's deadline, when known (sent only while that turn is under way)."""

    code: str
    token_hash: str
    key: str
    kind: Kind
    host_name: str
    ttl: int
    due_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class _Push:
    subscription: PushSubscription
    data: bytes
    ttl: int
    urgency: Urgency


class Budget:
    """At most ``per_hour`` pushes to one endpoint in any hour (this process's count, on its clock)."""

    def __init__(self, per_hour: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_hour, self.clock = per_hour, clock
        self._sent: dict[str, deque[float]] = {}

    def spend(self, endpoint: str) -> bool:
        """Count one push to ``endpoint``, if its budget allows it."""
        now = self.clock()
        times = self._sent.setdefault(endpoint, deque())
        while times and now - times[0] >= 3600:
            times.popleft()
        if len(times) >= self.per_hour:
            return False
        times.append(now)
        if len(self._sent) > 10_000:  # forget endpoints with nothing in the last hour
            for quiet in [e for e, t in self._sent.items() if not t or now - t[-1] >= 3600]:
                del self._sent[quiet]
        return True


class Pusher:
    """Turn notifications for one process. ``turn`` and ``reminder`` only queue (never waiting, never
    raising): call them from anywhere, a room's lock held or not. ``start`` in the running loop first.
    ``clock``: the seconds the hourly budget counts (the process's clock, as every other limit's)."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        *,
        workers: int = WORKERS,
        queue_size: int = QUEUE_SIZE,
        per_hour: int = PER_HOUR,
        timeout: float = 10.0,
        resolver: Resolve = default_resolve,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store, self.settings = store, settings
        self.workers, self.timeout, self.resolver = workers, timeout, resolver
        self.queue: asyncio.Queue[Nudge | _Push] = asyncio.Queue(queue_size)
        self.budget = Budget(per_hour, clock)
        self._key: VapidKey | None = None
        self._key_lock = asyncio.Lock()
        self._sender: Sender | None = None
        self._tasks: list[asyncio.Task[None]] = []

    def start(self) -> None:
        """Start the workers (in the running loop)."""
        if not self._tasks:
            self._tasks = [
                asyncio.create_task(self._work(), name=f"push-worker-{n}") for n in range(self.workers)
            ]

    async def close(self) -> None:
        """Stop the workers (what is queued is dropped) and close the HTTP client."""
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []
        if self._sender is not None:
            await self._sender.close()

    async def key(self) -> VapidKey:
        """The server's VAPID key pair (made and kept in the database at its first need)."""
        async with self._key_lock:
            if self._key is None:
                self._key = await load_key(self.store)
            return self._key

    async def public_key(self) -> str:
        """The VAPID public key, base64url: a browser's ``applicationServerKey``."""
        return (await self.key()).public

    def turn(
        self,
        code: str,
        token_hash: str,
        turn_key: str,
        host_name: str,
        *,
        ttl: int = 86400,
        due_at: datetime | None = None,
    ) -> bool:
        """Queue "your turn at <host>'s table" for the seat's devices; ``turn_key`` names the turn (a seat
        hears of each turn at most once, whichever process and however often this is called); ``ttl``: the
        seconds left for the turn; ``due_at``: its deadline (the table's ``due_at``: nothing is sent once
        the table has moved on to another turn). False: dropped (the queue is full)."""
        return self.enqueue(Nudge(code, token_hash, turn_key, "turn", host_name, ttl, due_at))

    def reminder(
        self,
        code: str,
        token_hash: str,
        turn_key: str,
        host_name: str,
        *,
        ttl: int = REMINDER_SECONDS,
        due_at: datetime | None = None,
    ) -> bool:
        """Queue the turn's last reminder ("an hour left …"), at most once per turn, as ``turn``."""
        return self.enqueue(Nudge(code, token_hash, turn_key, "reminder", host_name, ttl, due_at))

    def enqueue(self, item: Nudge | _Push) -> bool:
        """Queue a nudge (or a push) without waiting; False, counted and logged, when the queue is full."""
        try:
            self.queue.put_nowait(item)
        except asyncio.QueueFull:
            count_push("dropped")
            log.warning("push queue full: a notification was dropped")
            return False
        return True

    async def drain(self) -> None:
        """Wait until everything queued so far, and the pushes it leads to, is done."""
        await self.queue.join()

    async def _work(self) -> None:
        while True:
            item = await self.queue.get()
            try:
                if isinstance(item, Nudge):
                    await self._nudge(item)
                else:
                    await self._push(item)
            except Exception:  # a database away, a bug: this one is lost, the worker goes on
                count_push("error")
                log.exception("push failed")
            finally:
                self.queue.task_done()

    async def _nudge(self, nudge: Nudge) -> None:
        urgency = "high" if nudge.kind == "reminder" else "normal"
        for subscription in await self.store.push_subscriptions(nudge.code, nudge.token_hash):
            if not await self.store.push_claim(subscription.id, nudge.key, nudge.kind, nudge.due_at):
                continue  # notified already (by this process or another), or the turn is over
            if not self.budget.spend(subscription.endpoint):
                count_push("over_budget")
                continue
            data = texts.payload(
                code=nudge.code, kind=nudge.kind, host_name=nudge.host_name, lang=subscription.lang
            )
            self.enqueue(_Push(subscription, data, nudge.ttl, urgency))

    async def _push(self, push: _Push) -> None:
        sender = await self._sending()
        outcome = await sender.send(push.subscription, push.data, ttl=push.ttl, urgency=push.urgency)
        count_push(outcome.value)
        if outcome is Outcome.GONE:
            await self.store.push_drop(push.subscription.id)

    async def _sending(self) -> Sender:
        if self._sender is None:
            key = await self.key()
            if self._sender is None:
                self._sender = Sender(
                    key,
                    contact=self.settings.push_contact,
                    allowed_hosts=self.settings.push_hosts,
                    timeout=self.timeout,
                    resolver=self.resolver,
                )
        return self._sender
