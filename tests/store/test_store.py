"""The store on SQLite and PostgreSQL: migrations without drift, and every read/write function."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import event, inspect, text
from sqlalchemy.exc import IntegrityError

from app.engine import Draw, GameState, Options, action_to_dict, apply, new_game
from app.store import CodeTaken, RoundScore, SeatRecord, Store, VersionConflict, normalize_url, run_migrations
from app.store.db import alembic_config, make_engine
from app.store.models import Base

ROOT = Path(__file__).resolve().parents[2]
NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


async def test_upgrade_head_on_empty_database_matches_the_models(db_url: str) -> None:
    await run_migrations(db_url)
    engine = make_engine(db_url)
    try:
        async with engine.connect() as conn:

            def diff(sync_conn):  # type: ignore[no-untyped-def]
                ctx = MigrationContext.configure(sync_conn, opts={"compare_type": True})
                return compare_metadata(ctx, Base.metadata)

            assert await conn.run_sync(diff) == []
            tables = await conn.run_sync(lambda c: set(inspect(c).get_table_names()))
            assert {
                "rooms",
                "seats",
                "games",
                "actions",
                "round_scores",
                "game_players",
                "alembic_version",
            } <= tables
            version = (await conn.execute(text("select version_num from alembic_version"))).scalar_one()
            assert version == ScriptDirectory.from_config(alembic_config(db_url)).get_current_head()
        # Running it again is a no-op.
        await run_migrations(db_url)
    finally:
        await engine.dispose()


def test_alembic_command_line_upgrades_a_sqlite_file(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    result = subprocess.run(
        [sys.executable, "-m", "alembic", "upgrade", "head"],
        cwd=ROOT,
        env={"DATABASE_URL": url, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "cli.db").exists()


def test_normalize_url() -> None:
    assert normalize_url("postgresql://u:p%40x@h:5432/db") == "postgresql+asyncpg://u:p%40x@h:5432/db"
    assert normalize_url("postgres://h/db") == "postgresql+asyncpg://h/db"
    assert normalize_url("sqlite:///./data/x.db") == "sqlite+aiosqlite:///./data/x.db"
    assert normalize_url("sqlite+aiosqlite:///x.db") == "sqlite+aiosqlite:///x.db"


@pytest.fixture
async def store(migrated_url: str):  # type: ignore[no-untyped-def]
    store = Store(migrated_url)
    yield store
    await store.close()


def host(name: str = "Sara") -> SeatRecord:
    return SeatRecord(0, name, token_hash="a" * 64)


async def two_seat_game(store: Store, code: str, seed: int) -> tuple[GameState, int]:
    """A room with a person and a bot, its game started (the room at version 2): (state, game id)."""
    await store.create_room(
        code=code, seat_count=2, options={}, seats=[host(), SeatRecord(1, "B", True, "normal")], now=NOW
    )
    state = new_game(2, Options(), seed=seed)
    game_id = await store.start_game(
        code=code,
        version=2,
        number=1,
        seed=seed,
        options={},
        players=[{"seat": 0, "name": "Sara"}, {"seat": 1, "name": "B"}],
        state=state.to_dict(),
        now=NOW,
    )
    return state, game_id


async def draw_from_stock(
    store: Store, code: str, game_id: int, state: GameState, version: int, client_id: str
) -> GameState:
    """Commit the first move of ``state`` (a draw from the stock) as room version ``version``."""
    after, _ = apply(state, state.turn, Draw("stock"))
    await store.record_action(
        code=code,
        game_id=game_id,
        version=version,
        seq=version - 2,
        seat=state.turn,
        action=action_to_dict(Draw("stock")),
        client_id=client_id,
        state=after.to_dict(),
        finished=False,
        round_scores=[],
        now=NOW,
    )
    return after


async def test_room_seats_and_renumbering(store: Store) -> None:
    await store.create_room(
        code="ABCD2345",
        seat_count=4,
        options={"jokers": True},
        seats=[host(), SeatRecord(1, "Bot 2", True, "easy")],
        now=NOW,
    )
    with pytest.raises(CodeTaken):
        await store.create_room(code="ABCD2345", seat_count=2, options={}, seats=[host()], now=NOW)
    await store.add_seat(code="ABCD2345", version=2, seat=SeatRecord(2, "Omid", token_hash="b" * 64), now=NOW)
    with pytest.raises(VersionConflict):
        await store.add_seat(code="ABCD2345", version=2, seat=SeatRecord(3, "Late"), now=NOW)
    await store.add_seat(code="ABCD2345", version=3, seat=SeatRecord(3, "Nima", token_hash="c" * 64), now=NOW)
    await store.remove_seat(code="ABCD2345", version=4, index=1)
    await store.update_lobby(code="ABCD2345", version=5, options={"decks": 3}, seat_count=5)
    room = await store.load_room("ABCD2345")
    assert room is not None
    assert (room.status, room.version, room.seat_count, room.options) == ("lobby", 5, 5, {"decks": 3})
    assert [(s.index, s.name, s.token_hash) for s in room.seats] == [
        (0, "Sara", "a" * 64),
        (1, "Omid", "b" * 64),
        (2, "Nima", "c" * 64),
    ]
    assert room.game is None
    assert await store.load_room("NOPE2345") is None


async def test_game_actions_and_scores_commit_together(store: Store) -> None:
    await store.create_room(
        code="GAME2345", seat_count=2, options={}, seats=[host(), SeatRecord(1, "B", True, "normal")], now=NOW
    )
    state = new_game(2, Options(), seed=7)
    game_id = await store.start_game(
        code="GAME2345",
        version=2,
        number=1,
        seed=7,
        options={},
        players=[{"seat": 0, "name": "Sara"}, {"seat": 1, "name": "B"}],
        state=state.to_dict(),
        now=NOW,
    )
    after, _ = apply(state, state.turn, Draw("stock"))
    await store.record_action(
        code="GAME2345",
        game_id=game_id,
        version=3,
        seq=1,
        seat=state.turn,
        action=action_to_dict(Draw("stock")),
        client_id="c-1",
        state=after.to_dict(),
        finished=False,
        round_scores=[RoundScore(1, 0, "Sara", 0), RoundScore(1, 1, "B", 12)],
        now=NOW,
    )
    # The same client id again is refused by the database itself, and nothing of it is written.
    with pytest.raises(IntegrityError):
        await store.record_action(
            code="GAME2345",
            game_id=game_id,
            version=4,
            seq=2,
            seat=state.turn,
            action={"type": "discard", "card": "AS"},
            client_id="c-1",
            state={"broken": True},
            finished=True,
            round_scores=[],
            now=NOW,
        )
    room = await store.load_room("GAME2345")
    assert room is not None and room.game is not None
    assert (room.status, room.version, room.game.version, room.game.status) == ("playing", 3, 3, "playing")
    assert room.game.state == after.to_dict()
    assert room.game.acks["c-1"].version == 3
    assert (await store.find_ack(game_id=game_id, client_id="c-1")) == room.game.acks["c-1"]
    assert await store.find_ack(game_id=game_id, client_id="c-2") is None
    actions = await store.list_actions(game_id)
    assert [(a.seq, a.client_id, a.version) for a in actions] == [(1, "c-1", 3)]
    assert [s.penalty for s in await store.list_round_scores(game_id)] == [0, 12]
    loaded = await store.load_game_state(game_id)
    assert loaded == (3, after.to_dict())


@pytest.mark.postgres
async def test_a_move_commits_after_the_database_dropped_every_connection(pg_url: str) -> None:
    """Pooled connections are not pinged before use; a dead one is replaced and the move committed once."""
    await run_migrations(pg_url)
    store = Store(pg_url)
    try:
        state, game_id = await two_seat_game(store, "DROP2345", seed=3)
        killer = make_engine(pg_url)
        async with killer.connect() as conn:  # what a database restart does to the pool's connections
            killed = (
                await conn.execute(
                    text(
                        "select count(pg_terminate_backend(pid)) from pg_stat_activity "
                        "where datname = current_database() and pid <> pg_backend_pid()"
                    )
                )
            ).scalar_one()
        await killer.dispose()
        assert killed >= 1
        after = await draw_from_stock(store, "DROP2345", game_id, state, 3, "after-restart")
        assert await store.load_game_state(game_id) == (3, after.to_dict())
        assert [a.client_id for a in await store.list_actions(game_id)] == ["after-restart"]
    finally:
        await store.close()


async def test_sqlite_commits_queued_moves_together_and_fails_only_the_bad_one(sqlite_url: str) -> None:
    await run_migrations(sqlite_url)
    store = Store(sqlite_url)
    commits = 0

    def count(_conn: object) -> None:
        nonlocal commits
        commits += 1

    try:
        games: list[tuple[str, int]] = []
        for k in range(10):
            state, game_id = await two_seat_game(store, f"GRP{k}2345", seed=5)
            games.append((f"GRP{k}2345", game_id))

        def move(code: str, game_id: int, version: int, client_id: str) -> Any:
            return draw_from_stock(store, code, game_id, state, version, client_id)

        event.listen(store.engine.sync_engine, "commit", count)
        await asyncio.gather(*(move(code, game_id, 3, f"a-{code}") for code, game_id in games))
        assert commits <= 2  # the first alone, the nine that queued behind it in one transaction
        # A stale move among good ones: it alone fails; the others commit.
        results = await asyncio.gather(
            *(move(code, game_id, 4, f"b-{code}") for code, game_id in games[1:]),
            move(*games[0], 3, "stale"),
            return_exceptions=True,
        )
        assert all(isinstance(r, GameState) for r in results[:-1])
        assert isinstance(results[-1], VersionConflict)
        for code, game_id in games:
            room = await store.load_room(code)
            assert room is not None
            expected = ["a-" + code] + ([] if code == games[0][0] else ["b-" + code])
            assert [a.client_id for a in await store.list_actions(game_id)] == expected
            assert room.version == (3 if code == games[0][0] else 4)
    finally:
        await store.close()
