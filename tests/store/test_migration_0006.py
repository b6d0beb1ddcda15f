"""Migration 0006 on SQLite and PostgreSQL: a table stored before seats had avatars loads with none picked
(and a bot's seat still reads as a bot's); it goes down to 0005 and up again."""

from __future__ import annotations

from sqlalchemy import text

from app.store import Store
from app.store.db import make_engine

from .test_migration_0004 import _alembic, _columns


async def test_0006_old_tables_load_without_avatars_and_it_goes_down_and_up_again(db_url: str) -> None:
    await _alembic(db_url, "upgrade", "0005")
    engine = make_engine(db_url)
    try:
        async with engine.begin() as conn:
            await conn.execute(
                text(
                    "insert into rooms (code, created_at, status, options, seat_count, host_seat, version)"
                    " values ('OLD23456', '2026-01-01 00:00:00', 'lobby', '{}', 3, 0, 4)"
                )
            )
            for index, name, bot in ((0, "Sara", False), (1, "Bot 2", True)):
                await conn.execute(
                    text(
                        "insert into seats (room_code, seat_index, name, is_bot, created_at, token_hash)"
                        " values ('OLD23456', :i, :name, :bot, '2026-01-01 00:00:00', :token)"
                    ),
                    {"i": index, "name": name, "bot": bot, "token": None if bot else "a" * 64},
                )
    finally:
        await engine.dispose()
    await _alembic(db_url, "upgrade", "head")

    store = Store(db_url)
    try:
        loaded = await store.load_table("OLD23456")
    finally:
        await store.close()
    assert loaded is not None
    assert [(s.name, s.is_bot, s.avatar) for s in loaded.table.seats] == [
        ("Sara", False, None),
        ("Bot 2", True, None),
    ]

    await _alembic(db_url, "downgrade", "0005")
    assert "avatar" not in await _columns(db_url, "seats")
    await _alembic(db_url, "upgrade", "head")
    assert "avatar" in await _columns(db_url, "seats")
