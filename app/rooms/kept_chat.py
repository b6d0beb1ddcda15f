"""A table's chat kept in the store: each line (and reaction) is written before it is published, and a
welcome reads the recent ones back, so a page that (re)connects to any process, or after a restart, shows
them. The room runs a ``Said`` answer through it; the answer functions (``talk``) stay values only."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Protocol

from app.protocol import ChatLine, ChatOut, ReactionOut
from app.store import ChatBound, ChatRecord
from app.table import Refusal, Table

from .broadcast import Notice
from .outcomes import Said
from .render import iso

log = logging.getLogger(__name__)

# What a table keeps of its chat, in the store, for a page that (re)connects: the last lines and reactions,
# at most this many and this many bytes of names and text.
CHAT_KEPT_LINES = 50
CHAT_KEPT_BYTES = 16_384
CHAT_BOUND = ChatBound(CHAT_KEPT_LINES, CHAT_KEPT_BYTES)
READS = 3  # a welcome's chat is read again while lines keep arriving during the read, at most this often
UNSAID = "the chat line could not be saved (the database did not answer), so nobody heard it; try again"


class ChatStore(Protocol):
    async def add_chat(self, code: str, line: ChatRecord, bound: ChatBound) -> None: ...

    async def recent_chat(self, code: str, bound: ChatBound) -> list[ChatRecord]: ...


class TableChat:
    """A table's chat as the store keeps it, and a copy of it read once per loaded room.

    The copy is read from the store at the first welcome and then moved as the store is, by the notices of
    the lines kept (this process's own are delivered here when published). Whenever notices may have been
    missed (Redis came back, the room's channel was just joined) or the table was reloaded, it is
    ``forget``-ed and read again at the next welcome.

    A line that arrives while a welcome's read is in flight is neither lost nor shown twice to that socket:
    ``recent`` waits for this process's lines being written to be published, and reads again if a line
    began here or was heard from another process during its read; its caller joins the socket without
    awaiting anything after it, so every later line reaches the socket live. (A line another process wrote
    before the read but whose notice arrives after the join is shown twice: Redis's delay, rare.)"""

    def __init__(self, store: ChatStore, code: str, bound: ChatBound = CHAT_BOUND) -> None:
        self.store, self.code, self.bound = store, code, bound
        self.heard_count = 0  # lines begun here or heard from elsewhere
        self._copy: list[ChatRecord] | None = None  # the kept lines, oldest first (None: not read yet)
        self._unsettled: list[ChatRecord] = []  # the last read, when lines kept arriving during every read
        self._reading = asyncio.Lock()  # one read of the store at a time: a storm of welcomes reads once
        self._saying = 0  # lines of this process written or being written, not yet published
        self._quiet = asyncio.Event()
        self._quiet.set()

    def heard(self, said: ChatOut | ReactionOut | None, table: Table, *, now: datetime) -> None:
        """A line or reaction kept, here or by another process (its notice; None: one that could not be
        read)."""
        self.heard_count += 1
        if self._copy is not None:
            if said is None:
                self._copy = None
            else:
                self._keep(record(said, table, now=now))

    def made_here(self) -> None:
        """The table was just made by this process: nothing was said at it yet, nothing to read."""
        if self.heard_count == 0 and self._copy is None:
            self._copy = []

    def forget(self) -> None:
        """Notices may have been missed: the next welcome reads the store."""
        self._copy = None

    def _keep(self, line: ChatRecord) -> None:
        assert self._copy is not None
        self._copy = kept_within([*self._copy, line], self.bound)

    async def say(self, line: ChatRecord, publish: Callable[[], Awaitable[None]]) -> None:
        """Keep ``line`` in the store, then ``publish`` it (not published if it could not be kept)."""
        self.heard_count += 1
        self._saying += 1
        self._quiet.clear()
        try:
            try:
                await self.store.add_chat(self.code, line, self.bound)
            except Exception as exc:
                log.warning("room %s: could not keep a chat line: %s", self.code, exc)
                raise Refusal("not_ready", UNSAID) from exc
            await publish()  # its notice, delivered here at once, puts it in the copy (``heard``)
        finally:
            self._saying -= 1
            if not self._saying:
                self._quiet.set()

    async def tell(
        self, said: Said, table: Table, *, now: datetime, publish: Callable[[Notice], Awaitable[None]]
    ) -> None:
        """A ``Said`` answer run: the line kept, then published to the table on every process as a notice."""
        notice = Notice(self.code, said.kind, table.version, said.line.model_dump())
        await self.say(record(said.line, table, now=now), lambda: publish(notice))

    async def recent(self) -> list[ChatLine]:
        """The table's recent lines and reactions, oldest first: the copy, read from the store if there is
        none (none if the store does not answer: the welcome goes without them)."""
        if self._copy is None:
            async with self._reading:
                if self._copy is None:
                    await self._read()
        await self._quiet.wait()  # a line of this process on its way is published before the caller joins
        records = self._copy if self._copy is not None else self._unsettled
        return [
            ChatLine(seat=r.seat, name=r.name, text=r.text, at=iso(r.at), reaction=r.reaction or None)
            for r in records
        ]

    async def _read(self) -> None:
        """Read the store into the copy; if lines keep arriving during every read, the last read is shown
        once (``_unsettled``) and the copy stays unread."""
        self._unsettled = []
        try:
            for _ in range(READS):
                await self._quiet.wait()
                heard = self.heard_count
                records = await self.store.recent_chat(self.code, self.bound)
                if self.heard_count == heard and self._quiet.is_set():
                    self._copy = records
                    return
                self._unsettled = records
        except Exception as exc:
            log.warning("room %s: could not read the recent chat: %s", self.code, exc)


def kept_within(lines: list[ChatRecord], bound: ChatBound) -> list[ChatRecord]:
    """The newest of ``lines`` (oldest first) that the store keeps within ``bound``."""
    return lines[len(lines) - bound.within(reversed(lines)) :]


def record(said: ChatOut | ReactionOut, table: Table, *, now: datetime) -> ChatRecord:
    """A chat line (at the time it says) or a reaction (said ``now``, shown as the line a client shows for
    it: the seat's name, the emoji) as the store keeps it."""
    if isinstance(said, ChatOut):
        return ChatRecord(said.seat, said.name, said.text, datetime.fromisoformat(said.at))
    at = datetime.fromisoformat(said.at) if said.at else now
    return ChatRecord(said.seat, table.seats[said.seat].name, said.emoji, at, reaction=True)
