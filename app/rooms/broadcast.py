"""Fan-out of room notices to listeners: one small interface, in-process today.

With several server processes, an implementation over Redis pub/sub or PostgreSQL LISTEN/NOTIFY delivers
the same notices to every process; each renders per-seat views for its own sockets.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class Notice:
    """Something every socket of a room must hear about. ``kind``: 'state' or 'chat'."""

    room: str
    kind: str
    version: int
    payload: dict[str, Any] = field(default_factory=dict)


Listener = Callable[[Notice], None]


class Broadcaster(Protocol):
    def subscribe(self, room: str, listener: Listener) -> Callable[[], None]:
        """Listen to a room's notices; returns the function that stops listening."""
        ...

    async def publish(self, notice: Notice) -> None: ...


class InProcessBroadcaster:
    def __init__(self) -> None:
        self._listeners: dict[str, list[Listener]] = defaultdict(list)

    def subscribe(self, room: str, listener: Listener) -> Callable[[], None]:
        self._listeners[room].append(listener)

        def unsubscribe() -> None:
            listeners = self._listeners.get(room)
            if listeners and listener in listeners:
                listeners.remove(listener)
                if not listeners:
                    del self._listeners[room]

        return unsubscribe

    async def publish(self, notice: Notice) -> None:
        for listener in list(self._listeners.get(notice.room, ())):
            listener(notice)
