"""One client socket as the room sees it: its seat, its lifecycle, and a bounded outgoing queue."""

from __future__ import annotations

import asyncio
import collections
import itertools
from enum import StrEnum

from app.metrics import count_error
from app.protocol import encode, wire_error
from app.protocol.messages import _Out

_ids = itertools.count(1)

CLOSE_NORMAL = 1000
CLOSE_POLICY = 1008
CLOSE_TRY_AGAIN = 1013
CLOSE_RESTART = 1012


class ConnectionState(StrEnum):
    OPEN = "open"  # accepted, waiting for hello
    JOINED = "joined"  # said hello: a seat or a spectator
    CLOSED = "closed"


class WrongConnectionState(RuntimeError):
    def __init__(self, expected: ConnectionState, actual: ConnectionState) -> None:
        super().__init__(f"connection is {actual.value}, expected {expected.value}")
        self.expected, self.actual = expected, actual


class Outbox:
    """The texts waiting to be written to one socket, in order, for the one task that writes them (None:
    close). An ``asyncio.Queue`` does the same with more: two more deques, a count of unfinished tasks, an
    event, and on every wait a look-up of the running loop (a ``getpid`` system call in CPython 3.11, 2%
    of a busy server's samples); this keeps a deque and the writer's one waiting future."""

    __slots__ = ("_items", "_loop", "_waiter")

    def __init__(self) -> None:
        self._items: collections.deque[str | None] = collections.deque()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._waiter: asyncio.Future[None] | None = None

    def __len__(self) -> int:
        return len(self._items)

    def put(self, item: str | None) -> None:
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def clear(self) -> None:
        self._items.clear()

    def take(self) -> str | None:
        """The first item, without waiting (IndexError when there is none)."""
        return self._items.popleft()

    async def get(self) -> str | None:
        while not self._items:
            if self._loop is None:
                self._loop = asyncio.get_running_loop()
            self._waiter = self._loop.create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._items.popleft()


class Connection:
    """Messages are queued here (never awaited by the room) and written by the socket's own task,
    so one slow client never holds up a table. A client too far behind is closed; it resyncs on return."""

    def __init__(self, *, max_queue: int = 256, address: str = "unknown", proved: str | None = None) -> None:
        self.id = next(_ids)
        self.address = address  # the client's (a trusted proxy's forwarded one): per-address limits
        # The skeleton of the kept name its handshake's passkey session proved (None: not signed in).
        self.proved = proved
        self.seat: int | None = None
        # The hash of the token it said hello with (or was given when it asked for a seat); None: anonymous.
        self.token_hash: str | None = None
        self.state = ConnectionState.OPEN
        self.bad_hellos = 0  # hellos with a token that is nothing at the table (closed after a few)
        # Its hello said ``"acks": "in_state"``: a committed move of its own is acknowledged inside the state
        # it produced (``ack``), not by a separate ack message.
        self.acks_in_state = False
        self.close_code: int | None = None
        self._queue = Outbox()
        self._max_queue = max_queue

    @property
    def joined(self) -> bool:
        return self.state is ConnectionState.JOINED

    def join(self, seat: int | None) -> None:
        if self.state is not ConnectionState.OPEN:
            raise WrongConnectionState(ConnectionState.OPEN, self.state)
        self.seat = seat
        self.state = ConnectionState.JOINED

    def send(self, message: _Out) -> None:
        self.send_text(encode(message))

    def refuse(self, exc: BaseException, *, id: str | None = None) -> None:
        """Answer a refused message (or a bug) with its wire error, and count it."""
        error = wire_error(exc, id=id)
        count_error(error.code)
        self.send(error)

    def send_text(self, text: str) -> None:
        if self.state is ConnectionState.CLOSED:
            return
        if len(self._queue) >= self._max_queue:
            self._queue.clear()  # what it missed is replaced by a full state on reconnect
            self.close(CLOSE_TRY_AGAIN)
            return
        self._queue.put(text)

    def close(self, code: int = CLOSE_NORMAL) -> None:
        """Stop sending: the writer delivers what is queued, then closes the socket with ``code``."""
        if self.state is ConnectionState.CLOSED:
            return
        self.state = ConnectionState.CLOSED
        self.close_code = code
        self._queue.put(None)

    def drain(self) -> list[str]:
        """Take every message queued so far, without waiting (for tests and benchmarks: no socket)."""
        out = []
        while self._queue:
            text = self._queue.take()
            if text is not None:
                out.append(text)
        return out

    async def next_outgoing(self) -> str | None:
        """The next text to write, or None when the socket should be closed."""
        return await self._queue.get()
