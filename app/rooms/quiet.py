"""Rooms no other process hears: their notices are kept back instead of published on Redis for nobody.

Behind a balancer that puts a table's sockets on one process (docker/Caddyfile), nearly every table is loaded
on one process only, and publishing each of its moves would cost that process a Redis round trip and its own
notice back, for no listener. Redis answers each publish with how many subscriptions heard it. When that was
one, and a notice of this process's own has come back on the channel (so the one was us), and no other
process spoke on the channel meanwhile, the room is quiet: its notices are kept back from then on.

A process that starts to hear a room's channel says ``hello`` there (``redis_broadcast``). Whoever kept the
room quiet then publishes again, starting with what it kept back in the last ``REPLAY_SECONDS``: the moment
between the newcomer's read of the store and its hello's arrival. What was proven belongs to one
subscription: a new one (Redis restarted, a node failed over) starts with every room unproven.
"""

from __future__ import annotations

import time
from collections import deque

from .broadcast import EVERY_ROOM, Notice

REPLAY_SECONDS = 2.0  # a quiet room's notices kept back this long, said after all when a process joins
KEPT_BACK_LIMIT = 32  # and at most this many a room


class Hearers:
    """What one subscription (a shard's) knows of who else hears each of its rooms' channels."""

    def __init__(self) -> None:
        self._echoed: set[str] = set()  # rooms whose channel handed back a notice of our own
        self._spoken = 0  # notices heard from other processes on this subscription, numbered
        self._last_spoken: dict[str, int] = {}  # room -> the number of the last notice another said there
        self._quiet: dict[str, deque[tuple[float, Notice]]] = {}  # room -> what was kept back, and when

    def keep_back(self, notice: Notice) -> bool:
        """Keep ``notice`` back if no other process hears its room (True: not to be published)."""
        kept = self._quiet.get(notice.room)
        if kept is None:
            return False
        now = time.monotonic()
        while kept and kept[0][0] < now - REPLAY_SECONDS:
            kept.popleft()
        kept.append((now, notice))
        return True

    def before_publishing(self, rooms: list[str]) -> tuple[int, list[bool]]:
        """What is known as a batch of notices of ``rooms`` is sent: how many notices others had said, and
        for each room whether we are proven to hear its channel (``published``'s arguments)."""
        return self._spoken, [room in self._echoed for room in rooms]

    def published(self, room: str, heard_by: int, *, spoken_before: int, proven: bool, loaded: bool) -> None:
        """Redis says ``heard_by`` subscriptions heard our notice on ``room`` (still ``loaded`` here): the
        room turns quiet if that was us alone, and no other process spoke there since it was sent (a hello
        that crossed the notice)."""
        alone = (
            heard_by == 1
            and proven
            and loaded
            and room != EVERY_ROOM  # the heartbeat is how processes find each other: always said
            and room not in self._quiet
            and self._last_spoken.get(room, 0) <= spoken_before
        )
        if alone:
            self._quiet[room] = deque(maxlen=KEPT_BACK_LIMIT)

    def echoed(self, room: str) -> None:
        """A notice of our own came back on ``room``'s channel: Redis counts us among its receivers."""
        self._echoed.add(room)

    def spoken(self, room: str) -> list[Notice]:
        """Another process said something on ``room``'s channel, so it hears it: the room is no longer quiet.
        What was kept back in the last ``REPLAY_SECONDS``, to be published now."""
        self._spoken += 1
        self._last_spoken[room] = self._spoken
        kept = self._quiet.pop(room, None)
        if not kept:
            return []
        since = time.monotonic() - REPLAY_SECONDS
        return [notice for at, notice in kept if at >= since]

    def forget(self, room: str) -> None:
        """``room``'s channel is no longer heard here."""
        self._echoed.discard(room)
        self._last_spoken.pop(room, None)
        self._quiet.pop(room, None)
