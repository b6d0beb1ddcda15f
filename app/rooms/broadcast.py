"""Fan-out of room notices to listeners: one small interface, in-process or over Redis pub/sub.

In one process, ``InProcessBroadcaster`` hands a notice to the room's listeners at once. With several
processes (``REDIS_URL``: one Redis or a Redis Cluster), ``redis_broadcast.RedisBroadcaster`` also
publishes it on the room's Redis channel, and every other process hands it to its own listeners; each
renders per-seat views for its own sockets. A notice that is lost (Redis restarted, a slow subscriber
dropped) is repaired by the version: the next notice is ahead of the room, which then reloads from the
store; after a reconnection every loaded room does.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import uuid
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Notice:
    """Something every socket of a room must hear about. ``kind``: 'state', 'presence', 'here', 'chat' or
    'reaction'."""

    room: str
    kind: str
    version: int
    payload: dict[str, Any] = field(default_factory=dict)


EVERY_ROOM = "*"  # the channel of notices about every table (the heartbeat), heard by every process
Listener = Callable[[Notice], None]
Resync = Callable[[str | None], None]  # a room's code (None: every room) may have missed notices


class Broadcaster(Protocol):
    process_id: str
    shared: bool  # other processes hear these notices too

    def subscribe(self, room: str, listener: Listener) -> Callable[[], None]:
        """Listen to a room's notices; returns the function that stops listening."""
        ...

    async def publish(self, notice: Notice) -> None: ...

    async def close(self) -> None: ...


class InProcessBroadcaster:
    shared = False

    def __init__(self) -> None:
        self.process_id = uuid.uuid4().hex[:12]
        self._own = f'{{"from":"{self.process_id}",'  # how this process's notices begin (``encode_notice``)
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

    def rooms(self) -> set[str]:
        return set(self._listeners)

    def listened(self, room: str) -> bool:
        return room in self._listeners

    async def publish(self, notice: Notice) -> None:
        self.deliver(notice)

    def deliver(self, notice: Notice) -> None:
        for listener in list(self._listeners.get(notice.room, ())):
            try:
                listener(notice)
            except Exception:  # one odd notice (or a bug) costs that notice, never the subscription
                log.exception("a listener of room %s failed on a %.20r notice", notice.room, notice.kind)

    async def close(self) -> None:
        self._listeners.clear()


def encode_notice(notice: Notice, process_id: str, key: bytes = b"") -> str:
    """A notice as published on Redis (orjson: every committed move of every table is encoded here); with a
    ``key``, prefixed by its HMAC-SHA256 and a dot."""
    body = orjson.dumps(
        {
            "from": process_id,
            "room": notice.room,
            "kind": notice.kind,
            "version": notice.version,
            "payload": notice.payload,
        },
        option=orjson.OPT_NON_STR_KEYS,
    ).decode()
    return f"{_signature(key, body)}.{body}" if key else body


def _signature(key: bytes, body: str) -> str:
    return hmac.new(key, body.encode(), hashlib.sha256).hexdigest()


class _Envelope(BaseModel):
    """A notice as it travels on Redis, read strictly (what each kind's payload may hold is the room's to
    judge: ``app.rooms.peers``)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    sender: str = Field(alias="from", min_length=1, max_length=32)
    room: str = Field(min_length=1, max_length=16)
    kind: str = Field(min_length=1, max_length=16)
    version: int = Field(ge=0)
    payload: dict[str, Any]


def decode_notice(data: str, key: bytes = b"") -> tuple[str, Notice]:
    """(the publishing process, the notice); ValueError for anything that is not a notice (or, with a
    ``key``, not signed with it)."""
    if key:
        signature, _, data = data.partition(".")
        if not hmac.compare_digest(signature, _signature(key, data)):
            raise ValueError("a notice without a good signature")
    try:
        raw = _Envelope.model_validate_json(data)
    except ValidationError as exc:
        raise ValueError(f"not a notice: {exc.error_count()} problem(s)") from None
    return raw.sender, Notice(raw.room, raw.kind, raw.version, raw.payload)
