"""A table's recent chat in the store, on SQLite and PostgreSQL: kept within its bound (the oldest lines go as
new ones come), read back oldest first, and gone with its room."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import text

from app.store import ChatBound, ChatRecord, Store
from app.table.commands import new_table

NOW = datetime(2026, 12, 4, 8, 0, tzinfo=UTC)


@pytest.fixture
async def store(migrated_url: str):  # type: ignore[no-untyped-def]
    store = Store(migrated_url)
    for code in ("CHAT2345", "OTHR2345"):
        table = new_table(
            code=code, host="Sara", token_hash="a" * 64, bots=[], seat_count=2, options={}, now=NOW
        )
        await store.create_room(table, now=NOW)
    yield store
    await store.close()


async def rows(store: Store, code: str) -> int:
    async with store.engine.connect() as conn:
        query = text("select count(*) from chat_lines where room_code = :code")
        return int((await conn.execute(query, {"code": code})).scalar_one())


def line(n: int, said: str, *, seat: int = 0, name: str = "Sara") -> ChatRecord:
    return ChatRecord(seat, name, said, NOW + timedelta(seconds=n))


async def test_the_chat_is_kept_within_its_lines_and_bytes_oldest_first(store: Store) -> None:
    bound = ChatBound(lines=3, bytes=40)
    assert await store.recent_chat("CHAT2345", bound) == []
    for n in range(5):
        await store.add_chat("CHAT2345", line(n, f"line {n}"), bound)
    await store.add_chat("OTHR2345", line(9, "elsewhere"), bound)  # another table's chat is its own
    kept = await store.recent_chat("CHAT2345", bound)
    assert [r.text for r in kept] == ["line 2", "line 3", "line 4"]
    assert kept[0] == line(2, "line 2") and kept[0].at.tzinfo is not None
    assert await rows(store, "CHAT2345") == 3  # pruned as it was written, not only when read
    reaction = ChatRecord(1, "Omid", "👍", NOW + timedelta(seconds=6), reaction=True)  # 4 + 4 bytes
    await store.add_chat("CHAT2345", reaction, bound)
    await store.add_chat("CHAT2345", line(7, "ش" * 12, seat=1, name="Omid"), bound)  # 4 + 24 bytes
    kept = await store.recent_chat("CHAT2345", bound)
    assert kept == [reaction, line(7, "ش" * 12, seat=1, name="Omid")]  # 10 + 8 + 28 > 40: "line 4" went
    assert await rows(store, "CHAT2345") == 2
    assert [r.text for r in await store.recent_chat("OTHR2345", bound)] == ["elsewhere"]


async def test_the_read_keeps_the_bound_whatever_the_table_holds(store: Store) -> None:
    """Two processes pruning at once may each leave a line too many for a moment: the read never shows it."""
    for n in range(4):
        await store.add_chat("CHAT2345", line(n, f"line {n}"), ChatBound(lines=10, bytes=1000))
    assert [r.text for r in await store.recent_chat("CHAT2345", ChatBound(lines=2, bytes=1000))] == [
        "line 2",
        "line 3",
    ]
    assert [r.text for r in await store.recent_chat("CHAT2345", ChatBound(lines=10, bytes=19))] == ["line 3"]


async def test_the_chat_goes_with_its_room(store: Store) -> None:
    bound = ChatBound(lines=50, bytes=16_384)
    await store.add_chat("CHAT2345", line(0, "hi"), bound)
    await store.add_chat("OTHR2345", line(0, "hi"), bound)
    async with store.engine.begin() as conn:
        await conn.execute(text("delete from rooms where code = 'CHAT2345'"))
    assert await rows(store, "CHAT2345") == 0
    assert await rows(store, "OTHR2345") == 1
