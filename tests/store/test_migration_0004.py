"""Migration 0004 on SQLite and PostgreSQL: games in an older database get distinct random public ids, seats
get the request columns; it goes down to 0003 and up again."""

from __future__ import annotations

import asyncio

from alembic import command
from sqlalchemy import inspect, text

from app.store.db import alembic_config, ensure_sqlite_dir, make_engine, normalize_url


async def _alembic(url: str, verb: str, revision: str) -> None:
    ensure_sqlite_dir(normalize_url(url))
    await asyncio.to_thread(getattr(command, verb), alembic_config(url), revision)


async def _columns(url: str, table: str) -> set[str]:
    engine = make_engine(url)
    try:
        async with engine.connect() as conn:
            return await conn.run_sync(lambda c: {col["name"] for col in inspect(c).get_columns(table)})
    finally:
        await engine.dispose()


async def test_0004_backfills_public_ids_and_goes_down_and_up_again(db_url: str) -> None:
    await _alembic(db_url, "upgrade", "0003")
    engine = make_engine(db_url)
    try:
        async with engine.begin() as conn:
            await conn.execute(
                text(
                    "insert into rooms (code, created_at, status, options, seat_count, host_seat, version)"
                    " values ('OLD23456', '2026-01-01 00:00:00', 'finished', '{}', 2, 0, 9)"
                )
            )
            await conn.execute(
                text(
                    "insert into seats (room_code, seat_index, name, is_bot, created_at, is_program)"
                    " values ('OLD23456', 0, 'Sara', false, '2026-01-01 00:00:00', false)"
                )
            )
            for number in (1, 2, 3):
                await conn.execute(
                    text(
                        "insert into games (room_code, number, options, seed, players, status, version,"
                        " state, created_at) values ('OLD23456', :n, '{}', 7, '[]', 'finished', 9, '{}',"
                        " '2026-01-01 00:00:00')"
                    ),
                    {"n": number},
                )
        await _alembic(db_url, "upgrade", "head")
        async with engine.connect() as conn:
            ids = (await conn.execute(text("select public_id from games order by number"))).scalars().all()
            seat = (
                await conn.execute(
                    text("select former_token_hash, claim_name, claim_token_hash, claim_approved from seats")
                )
            ).one()
        assert len(ids) == 3 and len(set(ids)) == 3
        assert all(len(i) == 12 and i.isalnum() and not i.isdigit() for i in ids)
        assert tuple(seat) == (None, None, None, False)
    finally:
        await engine.dispose()

    await _alembic(db_url, "downgrade", "0003")
    assert "public_id" not in await _columns(db_url, "games")
    assert not {"former_token_hash", "claim_name", "claim_token_hash", "claim_approved"} & await _columns(
        db_url, "seats"
    )
    await _alembic(db_url, "upgrade", "head")
    assert "public_id" in await _columns(db_url, "games")
