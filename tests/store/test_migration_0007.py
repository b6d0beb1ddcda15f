"""Migration 0007 on SQLite and PostgreSQL: a database from before it gets an empty chat for every table, the
store keeps lines in it; it goes down to 0006 (the lines with it) and up again."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import inspect, text

from app.store import ChatBound, ChatRecord, Store
from app.store.db import make_engine

from .test_migration_0004 import _alembic

AT = datetime(2026, 12, 4, 8, 0, tzinfo=UTC)


async def _tables(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        async with engine.connect() as conn:
            return await conn.run_sync(lambda c: set(inspect(c).get_table_names()))
    finally:
        await engine.dispose()


async def test_0007_adds_an_empty_chat_and_goes_down_and_up_again(db_url: str) -> None:
    await _alembic(db_url, "upgrade", "0006")
    assert "chat_lines" not in await _tables(db_url)
    engine = make_engine(db_url)
    try:
        async with engine.begin() as conn:
            await conn.execute(
                text(
                    "insert into rooms (code, created_at, status, options, seat_count, host_seat, version)"
                    " values ('OLD23456', '2026-01-01 00:00:00', 'lobby', '{}', 3, 0, 4)"
                )
            )
    finally:
        await engine.dispose()
    await _alembic(db_url, "upgrade", "head")

    store = Store(db_url)
    bound = ChatBound(lines=50, bytes=16_384)
    try:
        assert await store.recent_chat("OLD23456", bound) == []
        said = ChatRecord(0, "Sara", "hi", AT)
        await store.add_chat("OLD23456", said, bound)
        assert await store.recent_chat("OLD23456", bound) == [said]
    finally:
        await store.close()

    await _alembic(db_url, "downgrade", "0006")
    assert "chat_lines" not in await _tables(db_url)
    await _alembic(db_url, "upgrade", "head")
    assert "chat_lines" in await _tables(db_url)
