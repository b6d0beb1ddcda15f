"""Standings benchmark: a player's record and the boards over REST, with 100,000 finished games stored.

Seeds a fresh database (SQLite in a temporary directory, or PostgreSQL with ``--postgres``: a database of
its own, ``standings_bench`` or ``--database``, next to ``TEST_POSTGRES_URL``'s) with ``--games`` finished
games at ``--games / 10`` tables, 2 to 4 seats each (a bot in about a third of them, a practice seat now and
then), and ``--names`` people whose game counts follow a Zipf-like law (the busiest plays thousands of
games). The rows are what the finishing move writes (``app/store/standings_writes.py``): each seat's outcome
on ``game_players`` and each counted person's ``player_standings`` row; the seed checks those records against
an aggregate over ``game_players`` before measuring. Then it rates every seeded game with migration 0014's
own ``_rate_finished_games`` (the ratings and their history, in finish order, as an upgrade of a server with
that many games does) and prints how long that took.

Then it starts the real server (``python -m app``) on that database and asks, one request at a time over
HTTP, ``--requests`` times each: the busiest player's record, a random player's record (both with the rating
and its history), the players' board by wins, by average and by rating (first pages and deep pages), the
hall of fame and of shame, and a table's series. It also asks for a name's games
(``GET /api/players/{name}/games``): the busiest player's first page, anyone's, a deep page by offset and
(where the server gives a ``next`` cursor) the same page by cursor.
The baseline is ``GET /api/games/{id}`` (one game by its public id), asked the same way in the same run.
It prints the median and p99 of each in ms, and their ratio to the baseline's.

    python benchmarks/standings.py                       # SQLite, 100,000 games
    python benchmarks/standings.py --postgres            # PostgreSQL
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import func, insert, select, text

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.store import Store, upgrade_head  # noqa: E402
from app.store.models import (  # noqa: E402
    GamePlayerRow,
    GameRow,
    PlayerStandingRow,
    RatingHistoryRow,
    RoomRow,
)
from app.store.standings import MAX_OFFSET  # noqa: E402
from app.table.text import name_skeleton  # noqa: E402
from benchmarks.load import Server, free_port, percentile  # noqa: E402

BATCH = 5_000
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def names(count: int) -> list[str]:
    syllables = ["sa", "ra", "mi", "do", "ne", "ka", "ri", "to", "la", "vi", "no", "be", "za", "hu"]
    rng, seen, out = random.Random(7), set(), []
    while len(out) < count:
        name = "".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))).capitalize()
        name += str(rng.randint(1, 99))
        if name_skeleton(name) not in seen:
            seen.add(name_skeleton(name))
            out.append(name)
    return out


def plan(games: int, people: list[str]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The games' and their seats' rows, each seat's outcome filled in as the finishing move would."""
    rng = random.Random(13)
    weights = [1 / (rank + 1) for rank in range(len(people))]  # Zipf: the busiest plays the most
    game_rows, seat_rows = [], []
    for game_id in range(1, games + 1):
        at = T0 + timedelta(minutes=game_id)
        seats = rng.randint(2, 4)
        humans = seats - (1 if rng.random() < 0.33 else 0)
        chosen: list[str] = []
        while len(chosen) < humans:
            name = rng.choices(people, weights)[0]
            if name not in chosen:
                chosen.append(name)
        totals = [rng.randint(0, 200) for _ in range(seats)]
        outs = [0] * seats
        for _ in range(11):
            outs[rng.randrange(seats)] += 1
        low = min(totals)
        winners = [s for s, t in enumerate(totals) if t == low]
        game_rows.append(
            {
                "id": game_id,
                "public_id": f"g{game_id:011d}",
                "room_code": f"R{(game_id - 1) % max(1, games // 10):07d}",
                "number": (game_id - 1) // max(1, games // 10) + 1,
                "options": {},
                "seed": game_id,
                "players": [],
                "status": "finished",
                "version": 100,
                "state": {},
                "created_at": at - timedelta(minutes=30),
                "finished_at": at,
            }
        )
        for seat in range(seats):
            bot = seat >= humans
            name = f"Bot {seat + 1}" if bot else chosen[seat]
            practice = not bot and rng.random() < 0.02
            seat_rows.append(
                {
                    "game_id": game_id,
                    "seat": seat,
                    "name": name,
                    "name_key": name.casefold(),
                    "skeleton": name_skeleton(name),
                    "is_bot": bot,
                    "is_program": False,
                    "practice": practice,
                    "total": totals[seat],
                    "won": seat in winners,
                    "win": 1 / len(winners) if seat in winners else 0.0,
                    "place": 1 + sum(1 for t in totals if t < totals[seat]),
                    "rounds_out_first": outs[seat],
                    "perfect": outs[seat] == 11,
                    "counted": not bot and not practice,
                    "finished_at": at,
                }
            )
    return game_rows, seat_rows


def records(seat_rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each counted person's record, as the finishing moves would have kept it (games in order)."""
    out: dict[str, dict[str, Any]] = {}
    for row in seat_rows:
        if not row["counted"]:
            continue
        total, game = row["total"], row["game_id"]
        record = out.setdefault(
            row["skeleton"],
            {
                "skeleton": row["skeleton"],
                "games": 0,
                "wins": 0.0,
                "total_sum": 0,
                "best_total": total,
                "best_game_id": game,
                "worst_total": total,
                "worst_game_id": game,
                "rounds_out_first": 0,
                "perfect_games": 0,
                "first_played": row["finished_at"],
            },
        )
        record["name"], record["last_played"] = row["name"], row["finished_at"]
        record["games"] += 1
        record["wins"] += row["win"]
        record["total_sum"] += total
        record["rounds_out_first"] += row["rounds_out_first"]
        record["perfect_games"] += int(row["perfect"])
        if total < record["best_total"]:
            record["best_total"], record["best_game_id"] = total, game
        if total > record["worst_total"]:
            record["worst_total"], record["worst_game_id"] = total, game
    for record in out.values():
        record["win_rate"] = record["wins"] / record["games"]
        record["average_total"] = record["total_sum"] / record["games"]
    return list(out.values())


async def seed(url: str, games: int, people: int) -> tuple[list[str], str, str]:
    """Fill the database; return (the names with a record, busiest first; a table code; a game id)."""
    game_rows, seat_rows = plan(games, names(people))
    kept = records(seat_rows)
    tables = sorted({g["room_code"] for g in game_rows})
    store = Store(url)
    try:
        async with store.engine.begin() as conn:
            rooms = [
                {
                    "code": code,
                    "created_at": T0,
                    "status": "finished",
                    "options": {},
                    "seat_count": 4,
                    "host_seat": 0,
                    "current_game_id": None,
                    "version": 100,
                }
                for code in tables
            ]
            for rows, table in ((rooms, RoomRow), (game_rows, GameRow), (seat_rows, GamePlayerRow)):
                for start in range(0, len(rows), BATCH):
                    await conn.execute(insert(table), rows[start : start + BATCH])
            for start in range(0, len(kept), BATCH):
                await conn.execute(insert(PlayerStandingRow), kept[start : start + BATCH])
        if store.dialect.value == "postgresql":  # as autovacuum leaves a database that has run a while
            async with store.engine.connect() as conn:
                conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
                await conn.execute(text("VACUUM ANALYZE"))
        async with store.engine.connect() as conn:  # the records are what the seats add up to
            check = (
                await conn.execute(
                    select(GamePlayerRow.skeleton, func.count(), func.sum(GamePlayerRow.total))
                    .where(GamePlayerRow.counted)
                    .group_by(GamePlayerRow.skeleton)
                )
            ).all()
            stored = {
                r.skeleton: (r.games, r.total_sum)
                for r in (await conn.execute(select(PlayerStandingRow))).all()
            }
        assert {s: (n, t) for s, n, t in check} == stored, "seeded records disagree with the seats"
    finally:
        await store.close()
    kept.sort(key=lambda r: -r["games"])
    busiest = kept[0]
    print(
        f"seeded {games:,} games, {len(seat_rows):,} seats, {len(kept):,} players, {len(tables):,} tables;"
        f" the busiest player has {busiest['games']:,} games"
    )
    return [r["name"] for r in kept], tables[0], game_rows[len(game_rows) // 2]["public_id"]


def migration_0014() -> Any:
    """Migration 0014's module (its file name is no module name: loaded from its path)."""
    path = ROOT / "migrations" / "versions" / "0014_ratings.py"
    spec = importlib.util.spec_from_file_location("migration_0014", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def rate(url: str) -> float:
    """Rate every seeded game as migration 0014 rates a server's finished games; the seconds it took."""
    store = Store(url)
    try:
        started = time.perf_counter()
        async with store.engine.begin() as conn:
            await conn.run_sync(migration_0014()._rate_finished_games)
        took = time.perf_counter() - started
        if store.dialect.value == "postgresql":
            async with store.engine.connect() as conn:
                conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
                await conn.execute(text("VACUUM ANALYZE"))
        async with store.engine.connect() as conn:  # every history line is one of a record's rated games
            lines = await conn.scalar(select(func.count()).select_from(RatingHistoryRow))
            rated = await conn.scalar(select(func.coalesce(func.sum(PlayerStandingRow.rated_games), 0)))
            names = await conn.scalar(select(func.count()).where(PlayerStandingRow.rating.is_not(None)))
        assert lines == rated and lines, "the ratings disagree with their history"
        print(f"rated {lines:,} finishes of {names:,} names in {took:.1f} s (migration 0014's rating)")
        return took
    finally:
        await store.close()


def measure(base: str, paths: dict[str, list[str]], requests: int) -> dict[str, list[float]]:
    """Each path's latencies in ms, asked in turns (one request at a time) so noise falls on all alike."""
    times: dict[str, list[float]] = {label: [] for label in paths}
    rng = random.Random(3)
    with httpx.Client(base_url=base, timeout=10) as client:
        for label, options in paths.items():  # warm up each once
            assert client.get(options[0]).status_code == 200, (label, options[0])
        for _ in range(requests):
            for label, options in paths.items():
                path = rng.choice(options)
                started = time.perf_counter()
                response = client.get(path)
                times[label].append((time.perf_counter() - started) * 1000)
                assert response.status_code == 200, (path, response.text[:200])
    return times


def deep_cursor(base: str, name: str, depth: int) -> str | None:
    """The ``next`` cursor after the first ``depth`` of ``name``'s games (None: the server gives none)."""
    cursor = None
    with httpx.Client(base_url=base, timeout=30) as client:
        for _ in range(depth // 100):
            query = {"limit": 100, **({"after": cursor} if cursor else {})}
            cursor = client.get(f"/api/players/{name}/games", params=query).json().get("next")
            if cursor is None:
                return None
    return cursor


async def fresh_postgres(base_url: str, name: str) -> str:
    admin = Store(base_url)
    try:
        async with admin.engine.connect() as conn:
            conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
            await conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            await conn.execute(text(f'CREATE DATABASE "{name}"'))
    finally:
        await admin.close()
    return base_url.rsplit("/", 1)[0] + f"/{name}"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--names", type=int, default=5_000, help="people playing")
    parser.add_argument("--requests", type=int, default=400, help="requests per path")
    parser.add_argument("--postgres", action="store_true", help="a database next to TEST_POSTGRES_URL's")
    parser.add_argument("--database", default="standings_bench", help="its name (made afresh, then kept)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        if args.postgres:
            base = os.environ.get("TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test")
            url = asyncio.run(fresh_postgres(base, args.database))
        else:
            url = f"sqlite+aiosqlite:///{tmp}/standings.db"
        upgrade_head(url)
        started = time.perf_counter()
        people, table, game = asyncio.run(seed(url, args.games, args.names))
        print(f"seeding took {time.perf_counter() - started:.1f} s")
        asyncio.run(rate(url))
        port = free_port()
        server = Server(url, port, MAX_STANDINGS_PER_MINUTE="1000000", MAX_RECORDS_PER_MINUTE="1000000")
        server.start()
        try:
            paths = {
                "baseline: one game": [f"/api/games/{game}"],
                "record: busiest": [f"/api/players/{people[0]}"],
                "record: anyone": [f"/api/players/{name}" for name in people],
                "board: wins": ["/api/leaderboard?by=wins"],
                "board: average, deep": ["/api/leaderboard?by=average&offset=2000"],
                "board: win rate, 10+": ["/api/leaderboard?by=win_rate&min_games=10"],
                "board: rating": ["/api/leaderboard?by=rating"],
                "board: rating, deep": ["/api/leaderboard?by=rating&offset=2000"],
                "board: rating, 10+": ["/api/leaderboard?by=rating&min_games=10"],
                "hall of fame": ["/api/leaderboard/games?order=best"],
                "hall of shame": ["/api/leaderboard/games?order=worst"],
                "hall of fame, deepest": [f"/api/leaderboard/games?order=best&offset={MAX_OFFSET - 20}"],
                "a table's series": [f"/api/rooms/{table}/leaderboard"],
                "games by name: busiest": [f"/api/players/{people[0]}/games"],
                "games by name: anyone": [f"/api/players/{name}/games" for name in people],
                "games by name: offset 2000": [f"/api/players/{people[0]}/games?offset=2000"],
            }
            cursor = deep_cursor(f"http://127.0.0.1:{port}", people[0], 2000)
            if cursor is not None:  # a server with keyset paging
                paths["games by name: after 2000"] = [f"/api/players/{people[0]}/games?after={cursor}"]
            times = measure(f"http://127.0.0.1:{port}", paths, args.requests)
        finally:
            server.stop()
    base_p50 = statistics.median(times["baseline: one game"])
    base_p99 = percentile(times["baseline: one game"], 99)
    database = "PostgreSQL" if args.postgres else "SQLite"
    print(f"\n{database}, {args.games:,} finished games, {args.requests} requests per path (ms)")
    print(f"{'path':28} {'p50':>7} {'p99':>7} {'p50 ×base':>10} {'p99 ×base':>10}")
    for label, values in times.items():
        p50, p99 = statistics.median(values), percentile(values, 99)
        print(f"{label:28} {p50:7.2f} {p99:7.2f} {p50 / base_p50:10.2f} {p99 / base_p99:10.2f}")
    worst = max(
        percentile(v, 99) for k, v in times.items() if not k.startswith(("baseline", "games by name"))
    )
    print(f"\nworst standings p99: {worst:.2f} ms (target 20 ms): {'met' if worst <= 20 else 'NOT met'}")


if __name__ == "__main__":
    main()
