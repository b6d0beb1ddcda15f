"""A table's chat kept in the store (``kept_chat.TableChat``): a line is published only once kept, a
welcome's read misses no line said meanwhile, here or through another process, and the copy read once is
moved as the store is, and read again once notices may have been missed."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from app.protocol import ChatOut, ReactionOut
from app.rooms.kept_chat import TableChat, record
from app.store import ChatBound, ChatRecord
from app.table import Refusal, Table
from app.table import commands as c

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


TABLE: Table = c.new_table(code="CHAT2345", host="Sara", token_hash="s", bots=["easy"], seat_count=2,
                           options={}, now=AT)  # fmt: skip


def said(text: str) -> ChatRecord:
    return ChatRecord(0, "Sara", text, AT)


def notice(text: str) -> ChatOut:
    """A line another process said, as its notice tells it."""
    return ChatOut(seat=0, name="Sara", text=text, at="2026-12-04T08:00:00.000Z")


async def heard(chat: TableChat, text: str) -> None:
    """Publishing a line: its notice is delivered on this process at once."""
    chat.heard(notice(text), TABLE, now=AT)


def texts(lines: list[object]) -> list[str]:
    return [line.text for line in lines]  # type: ignore[attr-defined]


async def test_a_line_heard_from_another_process_during_the_read_is_read_again() -> None:
    store = SlowStore()
    chat = TableChat(store, "CHAT2345")
    store.kept.append(said("before"))
    hold = store.hold_read = asyncio.Event()
    reading = asyncio.create_task(chat.recent())
    await asyncio.sleep(0)
    store.kept.append(said("meanwhile"))  # another process kept it after the read began; its notice comes
    chat.heard(notice("meanwhile"), TABLE, now=AT)
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


async def test_a_storm_of_welcomes_reads_the_store_once_and_the_copy_moves_with_the_lines() -> None:
    store = SlowStore()
    chat = TableChat(store, "CHAT2345")
    store.kept.append(said("before"))
    hold = store.hold_read = asyncio.Event()
    welcomes = [asyncio.create_task(chat.recent()) for _ in range(20)]
    await asyncio.sleep(0)
    hold.set()
    assert [texts(lines) for lines in await asyncio.gather(*welcomes)] == [["before"]] * 20
    assert store.reads == 1
    await chat.say(said("here"), lambda: heard(chat, "here"))  # said here: kept, then its notice heard
    store.kept.append(said("there"))  # another process kept it, and its notice arrives
    chat.heard(notice("there"), TABLE, now=AT)
    chat.heard(ReactionOut(seat=0, emoji="👍"), TABLE, now=AT)  # a reaction: shown as the seat's line
    store.kept.append(ChatRecord(0, "Sara", "👍", AT, reaction=True))
    lines = await chat.recent()
    assert texts(lines) == ["before", "here", "there", "👍"] and store.reads == 1
    assert [line.reaction for line in lines] == [None, None, None, True]
    assert lines == await TableChat(store, "CHAT2345").recent()  # what a fresh read shows


async def test_the_copy_keeps_what_the_store_keeps_within_its_bound() -> None:
    store = SlowStore()
    bound = ChatBound(lines=3, bytes=30)
    chat = TableChat(store, "CHAT2345", bound)
    assert await chat.recent() == []
    for text in ("one", "two", "three", "four"):
        await chat.say(said(text), lambda text=text: heard(chat, text))
    assert texts(await chat.recent()) == ["two", "three", "four"]  # three lines at most
    # "Sara" and 20 x's weigh 24 bytes: with "four" (8 bytes) they pass 30
    await chat.say(said("x" * 20), lambda: heard(chat, "x" * 20))
    assert texts(await chat.recent()) == ["x" * 20]
    assert store.reads == 1


async def test_after_missed_notices_or_an_unreadable_one_the_store_is_read_again() -> None:
    store = SlowStore()
    chat = TableChat(store, "CHAT2345")
    assert await chat.recent() == []
    store.kept.append(said("missed"))  # its notice was lost (Redis restarted)
    assert await chat.recent() == [] and store.reads == 1
    chat.forget()  # the room resyncs
    assert texts(await chat.recent()) == ["missed"] and store.reads == 2
    store.kept.append(said("garbled"))
    chat.heard(None, TABLE, now=AT)  # a notice this process could not read
    assert texts(await chat.recent()) == ["missed", "garbled"] and store.reads == 3


def test_a_reaction_is_kept_at_the_time_everyone_was_told() -> None:
    """A reaction carries its time (a page marks its chat read up to a time, and a reload must find the same
    time in the kept line); one relayed by an older process without it is kept at the time it is heard."""
    made = datetime(2026, 12, 4, 7, 59, 58, 125000, tzinfo=UTC)
    told = ReactionOut(seat=0, emoji="👍", at="2026-12-04T07:59:58.125Z")
    assert record(told, TABLE, now=AT) == ChatRecord(0, "Sara", "👍", made, reaction=True)
    assert record(ReactionOut(seat=0, emoji="👍"), TABLE, now=AT).at == AT
