"""A table's chat kept in the store (``kept_chat.TableChat``): a line is published only once kept, and a
welcome's read misses no line said meanwhile, here or through another process."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from app.rooms.kept_chat import TableChat
from app.store import ChatBound, ChatRecord
from app.table import Refusal

AT = datetime(2026, 12, 4, 8, 0, tzinfo=UTC)


class SlowStore:
    """The chat's store, whose next read or write waits until let go (a read returns what was kept when it
    began, as a snapshot does)."""

    def __init__(self) -> None:
        self.kept: list[ChatRecord] = []
        self.hold_read: asyncio.Event | None = None
        self.hold_write: asyncio.Event | None = None
        self.reads = 0
        self.broken = False

    async def add_chat(self, code: str, line: ChatRecord, bound: ChatBound) -> None:
        if self.broken:
            raise OSError("the database went away")
        if self.hold_write is not None:
            await self.hold_write.wait()
        self.kept.append(line)

    async def recent_chat(self, code: str, bound: ChatBound) -> list[ChatRecord]:
        self.reads += 1
        kept = list(self.kept)
        if self.hold_read is not None:
            hold, self.hold_read = self.hold_read, None
            await hold.wait()
        return kept


def said(text: str) -> ChatRecord:
    return ChatRecord(0, "Sara", text, AT)


async def test_a_line_heard_from_another_process_during_the_read_is_read_again() -> None:
    store = SlowStore()
    chat = TableChat(store, "CHAT2345")
    store.kept.append(said("before"))
    hold = store.hold_read = asyncio.Event()
    reading = asyncio.create_task(chat.recent())
    await asyncio.sleep(0)
    store.kept.append(said("meanwhile"))  # another process kept it after the read began; its notice comes
    chat.heard_one()
    hold.set()
    lines = await asyncio.wait_for(reading, 5)
    assert [line.text for line in lines] == ["before", "meanwhile"]
    assert store.reads == 2


async def test_a_welcome_waits_for_a_line_of_this_process_being_kept_and_published() -> None:
    store = SlowStore()
    chat = TableChat(store, "CHAT2345")
    store.hold_write = asyncio.Event()
    published: list[str] = []

    async def publish() -> None:
        published.append("line")

    saying = asyncio.create_task(chat.say(said("line"), publish))
    await asyncio.sleep(0)
    reading = asyncio.create_task(chat.recent())
    await asyncio.sleep(0)
    assert not reading.done() and store.reads == 0  # the line is on its way: its publish comes first
    store.hold_write.set()
    lines = await asyncio.wait_for(reading, 5)
    await saying
    assert published == ["line"] and [line.text for line in lines] == ["line"]


async def test_a_line_the_store_could_not_keep_is_heard_by_nobody() -> None:
    store = SlowStore()
    store.broken = True
    chat = TableChat(store, "CHAT2345")
    published: list[str] = []

    async def publish() -> None:
        published.append("line")

    with pytest.raises(Refusal) as refused:
        await chat.say(said("line"), publish)
    assert refused.value.code == "not_ready" and published == []
    store.broken = False
    assert await asyncio.wait_for(chat.recent(), 5) == []  # and a welcome does not wait for it
