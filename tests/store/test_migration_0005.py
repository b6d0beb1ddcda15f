"""Migration 0005 on SQLite and PostgreSQL: an older database's games get who went out first each round,
each finished game's outcomes, and every person's record (bots left out, look-alike names as one); it goes
down to 0004 and up again."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from sqlalchemy import text

from app.store.db import make_engine

from .test_migration_0004 import _alembic, _columns

RESULTS = [{"round": 1, "went_out": 1}, {"round": 2, "went_out": None}]
# (game number, seat, name, is_bot, penalties of rounds 1 and 2)
SEATS = [
    (1, 0, "Sara", False, (9, 4)),
    (1, 1, "Omid", False, (0, 2)),
    (1, 2, "Bot 3", True, (5, 1)),
    (2, 0, "SARA", False, (0, 3)),  # the same person: names are matched as the table matches them
    (2, 1, "Bot 2", True, (7, 0)),
]


async def test_0005_fills_in_outcomes_and_records_and_goes_down_and_up_again(db_url: str) -> None:
    await _alembic(db_url, "upgrade", "0004")
    engine = make_engine(db_url)
    try:
        async with engine.begin() as conn:
            await conn.execute(
                text(
                    "insert into rooms (code, created_at, status, options, seat_count, host_seat, version)"
                    " values ('OLD23456', '2026-01-01 00:00:00', 'finished', '{}', 3, 0, 9)"
                )
            )
            for number in (1, 2):
                await conn.execute(
                    text(
                        "insert into games (room_code, public_id, number, options, seed, players, status,"
                        " version, state, created_at, finished_at) values ('OLD23456', :pid, :n, '{}', 7,"
                        " '[]', 'finished', 9, :state, '2026-01-01 00:00:00', :at)"
                    ),
                    {
                        "pid": f"game{number}",
                        "n": number,
                        "state": json.dumps({"results": RESULTS}),
                        "at": datetime(2026, 1, number, tzinfo=UTC),
                    },
                )
            ids = dict((await conn.execute(text("select number, id from games"))).all())
            for number, seat, name, bot, penalties in SEATS:
                await conn.execute(
                    text(
                        "insert into game_players (game_id, seat, name, name_key, is_bot)"
                        " values (:g, :s, :name, :key, :bot)"
                    ),
                    {"g": ids[number], "s": seat, "name": name, "key": name.lower(), "bot": bot},
                )
                for round_number, penalty in enumerate(penalties, start=1):
                    await conn.execute(
                        text(
                            "insert into round_scores (game_id, round, seat, name, penalty)"
                            " values (:g, :r, :s, :name, :p)"
                        ),
                        {"g": ids[number], "r": round_number, "s": seat, "name": name, "p": penalty},
                    )
        await _alembic(db_url, "upgrade", "0005")
        async with engine.connect() as conn:
            out = (
                await conn.execute(text("select game_id, round, seat from round_scores where went_out"))
            ).all()
            records = (
                await conn.execute(
                    text(
                        "select name, games, wins, total_sum, best_total, worst_total, rounds_out_first,"
                        " best_game_id from player_standings order by skeleton"
                    )
                )
            ).all()
            counted = (
                await conn.execute(text("select count(*) from game_players where counted"))
            ).scalar_one()
    finally:
        await engine.dispose()
    assert sorted(out) == [(ids[1], 1, 1), (ids[2], 1, 1)]
    # Game 1: totals 13, 2, 6 (Omid wins, out first in round 1); game 2: SARA 3 wins against the bot's 7.
    assert [tuple(r) for r in records] == [
        ("Omid", 1, 1.0, 2, 2, 2, 1, ids[1]),
        ("SARA", 2, 1.0, 16, 3, 13, 0, ids[2]),
    ]
    assert counted == 3

    await _alembic(db_url, "downgrade", "0004")
    assert "went_out" not in await _columns(db_url, "round_scores")
    assert not {"skeleton", "counted", "practice"} & await _columns(db_url, "game_players")
    await _alembic(db_url, "upgrade", "head")
    assert "practice" in await _columns(db_url, "seats")
