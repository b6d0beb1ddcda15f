"""The store on SQLite and PostgreSQL: migrations without drift, and every read/write function."""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import sqlite3
import subprocess
import sys
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text
from sqlalchemy.exc import IntegrityError

from app.engine import Discard, Draw, Options
from app.engine.bots import choose_action
from app.store import (
    AckRecord,
    CodeTaken,
    ReplayedMove,
    Store,
    VersionConflict,
    WriteRefused,
    normalize_url,
    run_migrations,
)
from app.store.db import alembic_config, make_engine
from app.store.models import Base
from app.table import Change, RoundScore, Table, commands
from app.table.commands import new_table
from tests.reads import list_actions, list_round_scores, load_game_state

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


def lobby(code: str, *, bots: list[str], seat_count: int = 2, options: dict[str, Any] | None = None) -> Table:
    return new_table(
        code=code,
        host="Sara",
        token_hash="a" * 64,
        bots=bots,
        seat_count=seat_count,
        options=options or {},
        now=NOW,
    )


async def two_seat_game(store: Store, code: str, seed: int) -> tuple[Table, int]:
    """A room with a person and a bot, its game started (the room at version 2): (table, game id)."""
    table = lobby(code, bots=["normal"])
    await store.create_room(table, now=NOW)
    change = commands.start_game(table, seed=seed, public_id=f"{code.lower()}{seed:04d}", at=NOW)
    game_id = await store.commit(change)
    assert game_id is not None
    return commands.with_game_id(change, game_id).table, game_id


def draw_change(table: Table, client_id: str) -> Change:
    """The first move of the table's game (a draw from the stock)."""
    assert table.game is not None
    return commands.play(table, seat=table.game.turn, action=Draw("stock"), at=NOW, client_id=client_id)


async def test_room_seats_and_renumbering(store: Store) -> None:
    table = lobby("ABCD2345", bots=["easy"], seat_count=4, options={"jokers": True})
    await store.create_room(table, now=NOW)
    with pytest.raises(CodeTaken):
        await store.create_room(lobby("ABCD2345", bots=[]), now=NOW)
    omid = commands.seat_person(table, name="Omid", token_hash="b" * 64, at=NOW)
    await store.commit(omid)
    with pytest.raises(VersionConflict):  # another writer made version 2 first
        await store.commit(commands.seat_person(table, name="Late", token_hash="d" * 64, at=NOW))
    nima = commands.seat_person(omid.table, name="Nima", token_hash="c" * 64, at=NOW)
    await store.commit(nima)
    removed = commands.remove_seat(nima.table, index=1, at=NOW)
    await store.commit(removed)
    options = commands.set_options(removed.table, options={"decks": 3}, seats=5, at=NOW)
    await store.commit(options)
    loaded = await store.load_table("ABCD2345")
    assert loaded is not None
    room = loaded.table
    assert room == options.table  # what the store holds is what the commands made
    assert (room.status, room.version, room.seat_count, room.options) == (
        "lobby",
        5,
        5,
        Options(decks=3, jokers=True),
    )
    assert [(s.index, s.name, s.token_hash) for s in room.seats] == [
        (0, "Sara", "a" * 64),
        (1, "Omid", "b" * 64),
        (2, "Nima", "c" * 64),
    ]
    assert room.game is None
    assert await store.load_table("NOPE2345") is None


async def test_game_actions_and_scores_commit_together(store: Store) -> None:
    table, game_id = await two_seat_game(store, "GAME2345", seed=7)
    move = draw_change(table, "c-1")
    scored = replace(
        move, write=replace(move.write, round_scores=(RoundScore(1, 0, "Sara", 0), RoundScore(1, 1, "B", 12)))
    )
    await store.commit(scored)
    # The same client id again is refused by the database itself (the store says so: WriteRefused, not a
    # database that is away), and nothing of it is written.
    assert move.table.game is not None
    again = commands.play(
        move.table,
        seat=move.table.game.turn,
        action=Discard(move.table.game.hands[move.table.game.turn][0]),
        at=NOW,
        client_id="c-1",
    )
    with pytest.raises(WriteRefused) as refused:
        await store.commit(again)
    assert isinstance(refused.value.__cause__, IntegrityError)
    loaded = await store.load_table("GAME2345")
    assert loaded is not None and loaded.table.game is not None
    assert (loaded.table.status, loaded.table.version) == ("playing", 3)
    assert loaded.table.game == move.table.game
    assert loaded.acks == {"c-1": AckRecord(table.game.turn if table.game else 0, 3)}
    actions = await list_actions(store, game_id)
    assert [(a.seq, a.client_id, a.version) for a in actions] == [(1, "c-1", 3)]
    assert [s.penalty for s in await list_round_scores(store, game_id)] == [0, 12]
    stored = await load_game_state(store, game_id)
    assert stored is not None and stored[0] == 3


async def test_a_stale_move_writes_nothing(store: Store) -> None:
    """The version check, the log row and the snapshot go together: a move made from an old version (another
    writer moved the room on) is refused and leaves no trace."""
    table, game_id = await two_seat_game(store, "STAL2345", seed=5)
    first = draw_change(table, "m-1")
    await store.commit(first)
    with pytest.raises(VersionConflict):
        await store.commit(draw_change(table, "m-2"))  # made from the version before ``first``
    assert [a.client_id for a in await list_actions(store, game_id)] == ["m-1"]
    assert first.table.game is not None
    assert await load_game_state(store, game_id) == (3, first.table.game.to_dict())
    loaded = await store.load_table("STAL2345")
    assert loaded is not None and loaded.table == first.table


async def raw_snapshot_moves(store: Store, game_id: int) -> int:
    """How many moves the game's stored snapshot holds (read straight from the table)."""
    async with store.engine.connect() as conn:
        query = text("select state from games where id = :id")
        state = (await conn.execute(query, {"id": game_id})).scalar_one()
    return int((json.loads(state) if isinstance(state, str) else state)["moves"])


async def test_the_snapshot_is_written_at_round_ends_and_loading_replays_the_round(store: Store) -> None:
    """Moves inside a round write only their log row; a round's end writes the snapshot. Loading the table
    (a restart, another process) or the game replays the round's logged moves onto it, exactly."""
    table, game_id = await two_seat_game(store, "SNAP2345", seed=11)
    rounds_ended = 0
    round_moves: list[ReplayedMove] = []  # what loading gives a room's welcome of the round so far
    for n in range(1, 400):
        assert table.game is not None
        game = table.game
        action = choose_action(game, game.turn, "easy", n)
        change = commands.play(table, seat=game.turn, action=action, at=NOW, client_id=f"s-{n}")
        await store.commit(change)
        table = change.table
        assert table.game is not None
        ended = table.game.round > game.round or table.game.is_over
        snapshot_moves = await raw_snapshot_moves(store, game_id)
        if ended:  # the round's end (or the game's) is in the snapshot itself
            rounds_ended += 1
            assert snapshot_moves == table.game.moves
            round_moves = []
        else:  # inside a round the snapshot stays at the round's start; the log has the rest
            assert snapshot_moves < table.game.moves
            round_moves.append(ReplayedMove(game.turn, f"s-{n}", tuple(change.events)))
        loaded = await store.load_table("SNAP2345")
        assert loaded is not None and loaded.table.game == table.game
        assert loaded.round_moves == tuple(round_moves)
        assert await load_game_state(store, game_id) == (table.version, table.game.to_dict())
        if rounds_ended == 2:
            break
    assert rounds_ended == 2


@pytest.mark.postgres
async def test_a_move_commits_after_the_database_dropped_every_connection(pg_url: str) -> None:
    """Pooled connections are not pinged before use; a dead one is replaced and the move committed once."""
    await run_migrations(pg_url)
    store = Store(pg_url)
    try:
        table, game_id = await two_seat_game(store, "DROP2345", seed=3)
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
        move = draw_change(table, "after-restart")
        await store.commit(move)
        assert move.table.game is not None
        assert await load_game_state(store, game_id) == (3, move.table.game.to_dict())
        assert [a.client_id for a in await list_actions(store, game_id)] == ["after-restart"]
    finally:
        await store.close()


def trace_commits(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every COMMIT that SQLite itself runs, on any connection opened from now on (the engine's, through
    aiosqlite, and the store's move connection): SQLite's trace hook, not the store's own account."""
    commits: list[str] = []
    connect = sqlite3.connect

    def traced(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        connection = connect(*args, **kwargs)
        connection.set_trace_callback(lambda sql: commits.append(sql) if sql.strip() == "COMMIT" else None)
        return connection

    monkeypatch.setattr(sqlite3, "connect", traced)
    return commits


async def test_sqlite_commits_queued_moves_together_and_fails_only_the_bad_one(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    await run_migrations(sqlite_url)
    commits = trace_commits(monkeypatch)
    store = Store(sqlite_url)

    try:
        games: list[tuple[Table, int]] = []
        for k in range(10):
            games.append(await two_seat_game(store, f"GRP{k}2345", seed=5))
        assert len(commits) == 20  # each room and each game start: one transaction each
        firsts = [draw_change(table, f"a-{table.code}") for table, _ in games]

        def discard(change: Change) -> Change:
            game = change.table.game
            assert game is not None
            card = Discard(game.hands[game.turn][0])
            return commands.play(
                change.table, seat=game.turn, action=card, at=NOW, client_id=f"b-{game.turn}"
            )

        del commits[:]
        await asyncio.gather(*(store.commit(first) for first in firsts))
        assert 1 <= len(commits) <= 2  # the first alone, the nine that queued behind it in one transaction
        del commits[:]
        # A stale move and a move that reuses a client id, among good ones: they alone fail (the second
        # after its room's version was moved: that is rolled back with it); the others commit.
        stale, reused = games[0][0].code, games[1][0].code
        seconds = {first.table.code: discard(first) for first in firsts[2:]}
        reuse = commands.play(
            firsts[1].table,
            seat=firsts[1].write.seat,  # type: ignore[union-attr]
            action=discard(firsts[1]).write.action,  # type: ignore[union-attr]
            at=NOW,
            client_id=f"a-{reused}",
        )
        results = await asyncio.gather(
            *(store.commit(second) for second in seconds.values()),
            store.commit(draw_change(games[0][0], "stale")),
            store.commit(reuse),
            return_exceptions=True,
        )
        assert results[:-2] == [None] * 8
        assert isinstance(results[-2], VersionConflict)
        assert isinstance(results[-1], WriteRefused) and isinstance(results[-1].__cause__, IntegrityError)
        assert len(commits) == 1  # the ten queued together: one transaction; the failing ones rolled back
        for table, game_id in games:
            loaded = await store.load_table(table.code)
            assert loaded is not None
            moved = table.code not in (stale, reused)
            assert [a.version for a in await list_actions(store, game_id)] == ([3, 4] if moved else [3])
            assert loaded.table.version == (4 if moved else 3)
            # What the move path wrote reads back as the ORM wrote it: times, acks, the game's version.
            assert loaded.table.last_move_at == NOW
            second = seconds.get(table.code)
            client_ids = {"a-" + table.code} | (set() if second is None else {second.write.client_id})
            assert set(loaded.acks) == client_ids
            game_version, state = await load_game_state(store, game_id)
            assert game_version == loaded.table.version
            assert loaded.table.game is not None and state == loaded.table.game.to_dict()
    finally:
        await store.close()


async def test_sqlite_moves_do_not_wait_behind_every_queued_write(sqlite_url: str) -> None:
    """Twenty games start at once on SQLite (each its own transaction), and a move of a game already playing
    asks after them: it commits after the first start, not after all twenty (the group commit goes between
    any two other writes). Ordered by completion, not timed."""
    await run_migrations(sqlite_url)
    store = Store(sqlite_url)
    done: list[str] = []
    try:
        table, _ = await two_seat_game(store, "PLAY2345", seed=1)
        lobbies = [lobby(f"WAIT{k:02d}AB", bots=["normal"]) for k in range(20)]
        for waiting in lobbies:
            await store.create_room(waiting, now=NOW)

        async def commit(name: str, change: Change) -> None:
            await store.commit(change)
            done.append(name)

        starts = [
            commit(t.code, commands.start_game(t, seed=3, public_id=f"{t.code.lower()}0003", at=NOW))
            for t in lobbies
        ]
        await asyncio.gather(*starts, commit("move", draw_change(table, "quick")))
        assert sorted(done) == sorted([t.code for t in lobbies] + ["move"])
        assert done.index("move") <= 2, done  # without the turns: last, behind all twenty
    finally:
        await store.close()


@pytest.mark.postgres
async def test_postgresql_writers_take_the_pool_in_turn(pg_url: str) -> None:
    """At saturation the database is served first come, first served. Forty tables commit move after move
    through a pool of one connection, each coming back a moment after its last move (as a player's next
    move does). No commit is overtaken by one that asked after it. Without the store's turns, a connection
    given back goes to whoever asks next before the woken waiter runs, and the waiter goes to the back of
    the queue: commits were overtaken by 35-68. (Counted in commits, not timed: with one connection the
    order does not depend on how fast the machine is; with two, a slow commit on one connection was
    overtaken by however many the other served meanwhile.)"""
    await run_migrations(pg_url)
    store = Store(pg_url, pool_size=1, max_overflow=0)
    tables, total = 40, 800
    made = dict.fromkeys(range(tables), 0)
    tickets = itertools.count()
    commits: list[tuple[int, int]] = []  # (ticket when asked, ticket when committed)
    pause = random.Random(1)
    try:
        games = [await two_seat_game(store, f"TURN{k:02d}AB", seed=k) for k in range(tables)]

        async def play(k: int) -> None:
            table = games[k][0]
            while sum(made.values()) < total:
                game = table.game
                assert game is not None
                action = choose_action(game, game.turn, "easy", made[k])
                seat, client_id = game.turn, f"{k}-{made[k]}"
                change = commands.play(table, seat=seat, action=action, at=NOW, client_id=client_id)
                asked = next(tickets)
                await store.commit(change)
                commits.append((asked, next(tickets)))
                table, made[k] = change.table, made[k] + 1
                await asyncio.sleep(0.005 * pause.random())

        await asyncio.gather(*(play(k) for k in range(tables)))
        in_order = sorted(commits, key=lambda c: c[1])
        overtaken = [
            sum(1 for later, _ in in_order[:i] if later > asked) for i, (asked, _) in enumerate(in_order)
        ]
        assert max(overtaken) == 0, sorted(overtaken)[-10:]
    finally:
        await store.close()


async def test_versions_and_acks_are_read_without_loading_the_table(store: Store) -> None:
    """The cheap reads that check a cached table: stored versions of several rooms at once, and the ack of a
    client action of the current game from its log (what a process answers a retry it has no ack for)."""
    table, _ = await two_seat_game(store, "VERS2345", seed=3)
    await store.create_room(lobby("LOBB2345", bots=[]), now=NOW)
    move = draw_change(table, "v-1")
    await store.commit(move)
    assert await store.versions(["VERS2345", "LOBB2345", "NONE2345"]) == {"VERS2345": 3, "LOBB2345": 1}
    assert await store.versions([]) == {}
    assert await store.version_of("VERS2345") == 3
    assert await store.version_of("NONE2345") is None
    assert table.game is not None
    assert await store.ack_of("VERS2345", "v-1") == AckRecord(table.game.turn, 3)
    assert await store.ack_of("VERS2345", "v-2") is None
    assert await store.ack_of("LOBB2345", "v-1") is None


async def test_the_tail_of_a_room_is_its_version_and_the_moves_after_one(store: Store) -> None:
    """What a process reads to follow moves another one committed: the room's version and the logged moves
    after the one its cache holds; none when the game asked about is no longer the room's."""
    table, game_id = await two_seat_game(store, "TAIL2345", seed=3)
    first = draw_change(table, "t-1")
    await store.commit(first)
    assert first.table.game is not None
    turn = first.table.game.turn
    discard = commands.play(
        first.table,
        seat=turn,
        action=Discard(first.table.game.hands[turn][0]),
        at=NOW,
        client_id="t-2",
    )
    await store.commit(discard)
    tail = await store.tail("TAIL2345", game_id=game_id, after_seq=0)
    assert tail is not None and (tail.version, tail.game_id) == (4, game_id)
    assert [(m.seq, m.client_id, m.version, m.seat) for m in tail.moves] == [
        (1, "t-1", 3, turn),
        (2, "t-2", 4, turn),
    ]
    assert tail.moves[0].action == {"type": "draw", "source": "stock"} and tail.moves[0].at == NOW
    after_one = await store.tail("TAIL2345", game_id=game_id, after_seq=1)
    assert after_one is not None and [m.seq for m in after_one.moves] == [2]
    other_game = await store.tail("TAIL2345", game_id=game_id + 1, after_seq=0)
    assert other_game is not None and (other_game.version, other_game.moves) == (4, ())
    assert await store.tail("NONE2345", game_id=None, after_seq=0) is None
