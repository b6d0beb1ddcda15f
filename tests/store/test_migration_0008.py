"""Migration 0008 on SQLite and PostgreSQL: a database from before it keeps its games; each ended round of a
seat that was a bot's at the start is marked as played by a bot, no seat as handed to one; the index for a
name's games is made; it goes down to 0007 and up again."""

from __future__ import annotations

from sqlalchemy import inspect, text

from app.store.db import make_engine

from .test_migration_0004 import _alembic


async def _read(url: str, sql: str) -> list[tuple[object, ...]]:
    engine = make_engine(url)
    try:
        async with engine.connect() as conn:
            return [tuple(row) for row in (await conn.execute(text(sql))).all()]
    finally:
        await engine.dispose()


async def _indexes(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        async with engine.connect() as conn:
            found = await conn.run_sync(lambda c: inspect(c).get_indexes("game_players"))
            return {str(index["name"]) for index in found}
    finally:
        await engine.dispose()


async def test_0008_marks_the_old_bots_rounds_and_goes_down_and_up_again(db_url: str) -> None:
    await _alembic(db_url, "upgrade", "0007")
    engine = make_engine(db_url)
    try:
        async with engine.begin() as conn:
            for sql in (
                "insert into rooms (code, created_at, status, options, seat_count, host_seat, version)"
                " values ('OLD23456', '2026-01-01 00:00:00', 'finished', '{}', 2, 0, 9)",
                "insert into games (id, public_id, room_code, number, options, seed, players, status,"
                " version, state, created_at, finished_at) values (1, 'oldgame00001', 'OLD23456', 1, '{}',"
                " 1, '[]', 'finished', 9, '{}', '2026-01-01 00:00:00', '2026-01-01 01:00:00')",
                "insert into game_players (game_id, seat, name, name_key, skeleton, is_bot) values"
                " (1, 0, 'Sara', 'sara', 'sara', false), (1, 1, 'Bot 2', 'bot 2', 'bot2', true)",
                "insert into round_scores (game_id, round, seat, name, penalty) values"
                " (1, 1, 0, 'Sara', 0), (1, 1, 1, 'Bot 2', 12), (1, 2, 0, 'Sara', 5), (1, 2, 1, 'Bot 2', 0)",
            ):
                await conn.execute(text(sql))
    finally:
        await engine.dispose()
    assert "ix_game_players_by_name" not in await _indexes(db_url)
    await _alembic(db_url, "upgrade", "head")

    rounds = await _read(db_url, "select round, seat, bot from round_scores order by round, seat")
    assert [(r, s, bool(b)) for r, s, b in rounds] == [
        (1, 0, False),
        (1, 1, True),
        (2, 0, False),
        (2, 1, True),
    ]
    assert [bool(h) for (h,) in await _read(db_url, "select handed from game_players order by seat")] == [
        False,
        False,
    ]
    assert "ix_game_players_by_name" in await _indexes(db_url)

    await _alembic(db_url, "downgrade", "0007")
    assert "ix_game_players_by_name" not in await _indexes(db_url)
    await _alembic(db_url, "upgrade", "head")
    assert len(await _read(db_url, "select bot from round_scores")) == 4
