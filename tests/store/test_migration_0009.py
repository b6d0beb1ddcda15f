"""Migration 0009 on SQLite and PostgreSQL (issue 39, item 4): the seats' name skeletons are made again by
Unicode's confusables data, records whose names now read the same come together under the first spelling,
and a game where two counted seats now share a skeleton counts the lower seat only."""

from __future__ import annotations

from sqlalchemy import text

from app.store.db import make_engine
from app.table.text import name_skeleton

from .test_migration_0004 import _alembic
from .test_migration_0008 import _read

ROOM = (
    "insert into rooms (code, created_at, status, options, seat_count, host_seat, version)"
    " values ('OLD23456', '2026-01-01 00:00:00', 'finished', '{}', 2, 0, 9)"
)
GAME = (
    "insert into games (id, public_id, room_code, number, options, seed, players, status, version, state,"
    " created_at, finished_at) values ({id}, 'oldgame0000{id}', 'OLD23456', {id}, '{{}}', 1, '[]',"
    " 'finished', 9, '{{}}', '2026-01-0{id} 00:00:00', '2026-01-0{id} 01:00:00')"
)
SEAT = (
    "insert into game_players (game_id, seat, name, name_key, skeleton, is_bot, total, won, counted, win,"
    " place, rounds_out_first, perfect, finished_at) values ({game}, {seat}, '{name}', '{key}', '{old}',"
    " false, {total}, {won}, true, {win}, {place}, {outs}, false, '2026-01-0{game} 01:00:00')"
)
RECORD = (
    "insert into player_standings (skeleton, name, games, wins, win_rate, total_sum, average_total,"
    " best_total, best_game_id, worst_total, worst_game_id, rounds_out_first, perfect_games, first_played,"
    " last_played) values ('{old}', '{name}', 1, {win}, {win}, {total}, {total}, {total}, {game}, {total},"
    " {game}, {outs}, 0, '2026-01-0{game} 01:00:00', '2026-01-0{game} 01:00:00')"
)
# (game, seat, name, the old fold's skeleton, total, win, outs first): Sara and "Sɑrɑ" (Latin alpha) had a
# record each; "Omid" and "0mid" both counted at one table.
SEATS = [
    (1, 0, "Sara", "sara", 50, 1.0, 6),
    (2, 0, "S\u0251r\u0251", "s\u0251r\u0251", 30, 1.0, 8),
    (3, 0, "Omid", "omid", 20, 1.0, 9),
    (3, 1, "0mid", "0mid", 90, 0.0, 2),
]


async def test_0009_folds_again_and_merges_the_records_that_come_together(db_url: str) -> None:
    await _alembic(db_url, "upgrade", "0008")
    engine = make_engine(db_url)
    try:
        async with engine.begin() as conn:
            await conn.execute(text(ROOM))
            for game in (1, 2, 3):
                await conn.execute(text(GAME.format(id=game)))
            for game, seat, name, old, total, win, outs in SEATS:
                won, place = ("true", 1) if win else ("false", 2)
                values = dict(game=game, seat=seat, name=name, old=old, total=total, win=win, outs=outs)
                await conn.execute(text(SEAT.format(key=name.casefold(), won=won, place=place, **values)))
                await conn.execute(text(RECORD.format(**values)))
    finally:
        await engine.dispose()
    await _alembic(db_url, "upgrade", "head")

    seats = await _read(
        db_url, "select game_id, seat, skeleton, counted from game_players order by game_id, seat"
    )
    assert [(g, s, k, bool(c)) for g, s, k, c in seats] == [
        (1, 0, name_skeleton("Sara"), True),
        (2, 0, name_skeleton("Sara"), True),
        (3, 0, name_skeleton("Omid"), True),
        (3, 1, name_skeleton("Omid"), False),  # the same name as seat 0's now: the lower seat counts
    ]
    records = await _read(
        db_url,
        "select skeleton, name, games, wins, win_rate, total_sum, average_total, best_total, best_game_id,"
        " worst_total, worst_game_id, rounds_out_first, perfect_games from player_standings order by name",
    )
    assert [tuple(r) for r in records] == [
        (name_skeleton("Omid"), "Omid", 1, 1.0, 1.0, 20, 20.0, 20, 3, 20, 3, 9, 0),
        (name_skeleton("Sara"), "Sara", 2, 2.0, 1.0, 80, 40.0, 30, 2, 50, 1, 14, 0),  # the first spelling's
    ]

    await _alembic(db_url, "downgrade", "0008")
    await _alembic(db_url, "upgrade", "head")
    assert len(await _read(db_url, "select skeleton from player_standings")) == 2
