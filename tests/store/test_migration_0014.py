"""Migration 0014 on SQLite and PostgreSQL (issue 36, part 2): the finished games from before ratings are
rated in the order they finished (equal moments by the game's id), counted seats only, and every rated name's
rating and history equal openskill's own Plackett-Luce computed here game by game; it goes down and up."""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce
from sqlalchemy import text

from app.store.db import make_engine

from .test_migration_0004 import _alembic, _columns
from .test_migration_0008 import _read

ROOM = (
    "insert into rooms (code, created_at, status, options, seat_count, host_seat, version)"
    " values ('OLD23456', '2026-01-01 00:00:00', 'finished', '{}', 4, 0, 9)"
)
GAME = (
    "insert into games (id, public_id, room_code, number, options, seed, players, status, version, state,"
    " created_at, finished_at) values ({id}, 'oldgame{id:05d}', 'OLD23456', {id}, '{{}}', 1, '[]',"
    " 'finished', 9, '{{}}', '2026-01-01 00:00:00', '{at}')"
)
SEAT = (
    "insert into game_players (game_id, seat, name, name_key, skeleton, is_bot, total, won, counted, padded,"
    " finished_at) values ({game}, {seat}, '{name}', '{key}', '{key}', {bot}, {total}, false, {counted},"
    " {padded}, '{at}')"
)
RECORD = (
    "insert into player_standings (skeleton, name, games, wins, win_rate, total_sum, average_total,"
    " best_total, best_game_id, worst_total, worst_game_id, rounds_out_first, perfect_games, first_played,"
    " last_played) values ('{key}', '{name}', 1, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, '2026-01-01 00:00:00',"
    " '2026-01-01 00:00:00')"
)
# game id -> when it finished, and its seats: (name, final total, counted, padded, bot). Game 4 finished
# first and game 2 before game 1 (finish order is not id order); games 5 and 6 finished at the same moment
# (the lower id first). Game 3 has one counted person (rates nobody); game 7 is padding (rates nobody); the
# bot and the practice seat (not counted) never move a rating; game 5 is a tie.
GAMES: dict[int, tuple[str, list[tuple[str, int, bool, bool, bool]]]] = {
    1: ("2026-01-03 10:00:00", [("Sara", 40, True, False, False), ("Omid", 90, True, False, False)]),
    2: (
        "2026-01-02 10:00:00",
        [
            ("Omid", 20, True, False, False),
            ("Sara", 60, True, False, False),
            ("Bot 3", 5, False, False, True),
        ],
    ),
    3: ("2026-01-04 10:00:00", [("Sara", 10, True, False, False), ("Bot 2", 80, False, False, True)]),
    4: (
        "2026-01-01 10:00:00",
        [
            ("Nika", 30, True, False, False),
            ("Sara", 30, True, False, False),
            ("Omid", 70, False, False, False),
        ],
    ),
    5: (
        "2026-01-05 10:00:00",
        [
            ("Nika", 50, True, False, False),
            ("Omid", 50, True, False, False),
            ("Sara", 90, True, False, False),
        ],
    ),
    6: ("2026-01-05 10:00:00", [("Omid", 15, True, False, False), ("Nika", 99, True, False, False)]),
    7: ("2026-01-06 10:00:00", [("Sara", 1, False, True, False), ("Nika", 200, False, True, False)]),
}


def direct() -> tuple[dict[str, tuple[float, float, int]], dict[str, list[tuple[int, float, float]]]]:
    """openskill's own answer: each name's (mu, sigma, rated games) and history, rating game by game."""
    model = PlackettLuce()
    ratings: dict[str, tuple[float, float, int]] = {}
    history: dict[str, list[tuple[int, float, float]]] = {}
    for game in sorted(GAMES, key=lambda g: (GAMES[g][0], g)):
        seats = sorted((name.casefold(), total) for name, total, counted, _, _ in GAMES[game][1] if counted)
        if len(seats) < 2:
            continue
        teams = [[model.rating(*ratings.get(key, (25.0, 25 / 3, 0))[:2])] for key, _ in seats]
        ranks = [1 + sum(other < total for _, other in seats) for _, total in seats]
        for (key, _), [after] in zip(seats, model.rate(teams, ranks=ranks), strict=True):
            ratings[key] = (after.mu, after.sigma, ratings.get(key, (0, 0, 0))[2] + 1)
            history.setdefault(key, []).append((game, after.mu, after.sigma))
    return ratings, history


async def test_0014_rates_the_finished_games_in_the_order_they_finished(db_url: str) -> None:
    await _alembic(db_url, "upgrade", "0013")
    engine = make_engine(db_url)
    try:
        async with engine.begin() as conn:
            await conn.execute(text(ROOM))
            for game, (at, seats) in GAMES.items():
                await conn.execute(text(GAME.format(id=game, at=at)))
                for seat, (name, total, counted, padded, bot) in enumerate(seats):
                    values = dict(game=game, seat=seat, name=name, key=name.casefold(), total=total, at=at)
                    flags = dict(
                        counted=str(counted).lower(), padded=str(padded).lower(), bot=str(bot).lower()
                    )
                    await conn.execute(text(SEAT.format(**values, **flags)))
            for name in ("Sara", "Omid", "Nika"):
                await conn.execute(text(RECORD.format(key=name.casefold(), name=name)))
    finally:
        await engine.dispose()
    await _alembic(db_url, "upgrade", "head")

    ratings, history = direct()
    assert set(ratings) == {"sara", "omid", "nika"} and ratings["sara"][2] == 4  # games 4, 2, 1, 5
    rows = await _read(
        db_url, "select skeleton, rating, rating_mu, rating_sigma, rated_games from player_standings"
    )
    assert {key: (rating, mu, sigma, games) for key, rating, mu, sigma, games in rows} == {
        key: (pytest.approx(mu - 3 * sigma, abs=1e-9), pytest.approx(mu), pytest.approx(sigma), games)
        for key, (mu, sigma, games) in ratings.items()
    }
    lines = await _read(
        db_url,
        "select skeleton, game_id, mu, sigma, rating from rating_history order by finished_at, game_id",
    )
    for key, expected in history.items():
        got = [(game, mu, sigma, rating) for skeleton, game, mu, sigma, rating in lines if skeleton == key]
        assert got == [
            (game, pytest.approx(mu), pytest.approx(sigma), pytest.approx(mu - 3 * sigma))
            for game, mu, sigma in expected
        ]

    await _alembic(db_url, "downgrade", "0013")
    assert "rating" not in await _columns(db_url, "player_standings")
    await _alembic(db_url, "upgrade", "head")
    assert len(await _read(db_url, "select * from rating_history")) == len(lines)
