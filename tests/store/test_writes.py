"""Every kind of write commits on every database path, and every path writes a move's row the same way."""

from __future__ import annotations

import json
import typing
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import text

from app.engine import Discard, Draw
from app.store import Store, VersionConflict, WriteRefused, run_migrations
from app.store.models import Base
from app.table import Change, FinalTotal, Reopen, RoomStatus, RoundScore, Table, Write, commands
from app.table.commands import new_table
from tests.conftest import fresh_pg_database

NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


@pytest.fixture(params=["sqlite-file", "sqlite-memory", pytest.param("postgres", marks=pytest.mark.postgres)])
async def any_store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    """A migrated store on each path its writes can take: a SQLite file (moves on a connection of their
    own), an in-memory SQLite database (moves through SQLAlchemy), PostgreSQL (moves straight on asyncpg)."""
    if request.param == "postgres":
        async with fresh_pg_database() as url:
            await run_migrations(url)
            store = Store(url)
            yield store
            await store.close()
        return
    if request.param == "sqlite-file":
        url = f"sqlite+aiosqlite:///{tmp_path / 'writes.db'}"
        await run_migrations(url)
        store = Store(url)
    else:
        store = Store("sqlite+aiosqlite://")
        async with store.engine.begin() as conn:
            await conn.run_sync(Base.metadata.create_all)
    yield store
    await store.close()


async def _commit(store: Store, change: Change) -> Table:
    """Commit a change; the table as the store holds it afterwards (the change's own table, game id given)."""
    game_id = await store.commit(change)
    table = change.table if game_id is None else commands.with_game_id(change, game_id).table
    assert await store.version_of(table.code) == table.version
    return table


async def test_every_kind_of_write_commits(any_store: Store) -> None:
    """Each kind of ``Write`` (app.table.changes) moves the room's version and stores what it writes; a new
    kind fails here (and mypy fails at the store's ``assert_never``) until the store writes it."""
    store, committed = any_store, set()
    table = new_table(
        code="KIND2345", host="Sara", token_hash="a" * 64, bots=["easy"], seat_count=4, options={}, now=NOW
    )
    await store.create_room(table, now=NOW)

    async def commit(change: Change | None) -> Table:
        assert change is not None  # set_options answers None for no change
        committed.add(type(change.write))
        return await _commit(store, change)

    table = await commit(commands.seat_person(table, name="Omid", token_hash="b" * 64, at=NOW))  # AddSeat
    table = await commit(commands.add_bot(table, level="hard", at=NOW))  # AddSeat
    table = await commit(commands.remove_seat(table, index=3, at=NOW))  # RemoveSeat
    table = await commit(commands.hand_to_bot(table, index=1, level="normal", at=NOW))  # ReplaceSeat
    table = await commit(commands.set_options(table, options={"jokers": True}, seats=5, at=NOW))  # SetLobby
    table = await commit(commands.make_host(table, index=2, at=NOW))  # SetHost
    loaded = await store.load_table(table.code)
    assert loaded is not None and loaded.table == table
    table = await commit(commands.start_game(table, seed=3, public_id="kind0003", at=NOW))  # StartGame
    assert table.game is not None
    # A move inside a round (the hot path of each database) and one that ends a round (the snapshot).
    table = await commit(
        commands.play(table, seat=table.game.turn, action=Draw("stock"), at=NOW, client_id="m1")
    )
    assert table.game is not None
    card = Discard(table.game.hands[table.game.turn][0])
    ending = commands.play(table, seat=table.game.turn, action=card, at=NOW, client_id="m2")
    scores = tuple(RoundScore(1, s.index, s.name, 5) for s in table.seats)
    totals = tuple(FinalTotal(s.index, 5, s.index == 0) for s in table.seats)
    table = await commit(
        replace(ending, write=replace(ending.write, round_scores=scores, final_totals=totals))
    )
    loaded = await store.load_table(table.code)
    assert loaded is not None and loaded.table.game == table.game and set(loaded.acks) == {"m1", "m2"}
    # Reopen needs a finished table; the store only records the status (the rules are app.table's).
    table = await commit(
        Change(replace(table, version=table.version + 1, status=RoomStatus.LOBBY), Reopen(), NOW)
    )
    loaded = await store.load_table(table.code)
    assert loaded is not None and loaded.table.status is RoomStatus.LOBBY
    table = await commit(commands.start_game(table, seed=4, public_id="kind0004", at=NOW))
    table = await commit(commands.end_game(table, at=NOW))  # EndGame
    loaded = await store.load_table(table.code)
    assert loaded is not None and loaded.table.status is RoomStatus.LOBBY and loaded.table.game_ended
    assert committed == set(typing.get_args(Write))


async def test_a_host_who_leaves_and_a_game_ended_early_are_stored(any_store: Store) -> None:
    """The host's leaving moves the host role in the same write; a game the host ended is stored as ended,
    with its end time, and enters nobody's standings."""
    store = any_store
    table = new_table(
        code="LEAV2345", host="Sara", token_hash="a" * 64, bots=["easy"], seat_count=3, options={}, now=NOW
    )
    await store.create_room(table, now=NOW)
    table = await _commit(store, commands.seat_person(table, name="Omid", token_hash="b" * 64, at=NOW))
    table = await _commit(store, commands.start_game(table, seed=3, public_id="leav0003", at=NOW))
    table = await _commit(store, commands.leave(table, index=0, at=NOW, away={}))
    loaded = await store.load_table(table.code)
    assert loaded is not None and loaded.table.host_seat == 2 and loaded.table.seats == table.seats
    assert loaded.table.seats[0].is_bot and loaded.table.seats[0].former_token_hash == "a" * 64
    table = await _commit(store, commands.end_game(table, at=NOW))
    async with store.engine.connect() as conn:
        status, finished = (
            await conn.execute(text("SELECT status, finished_at FROM games WHERE public_id = 'leav0003'"))
        ).one()
        standings = (await conn.execute(text("SELECT count(*) FROM player_standings"))).scalar_one()
    assert status == "ended" and finished is not None and standings == 0
    with pytest.raises(VersionConflict):  # a second end of the same game (another writer) is refused
        stale = replace(table, status=RoomStatus.PLAYING)
        await store.commit(commands.end_game(stale, at=NOW))
    assert await store.version_of(table.code) == table.version  # and nothing of it was written


async def test_every_path_stores_a_move_as_the_orm_does(any_store: Store) -> None:
    """A move inside a round (written on each driver without SQLAlchemy) and one that ends a round (through
    SQLAlchemy) store their log rows alike, column by column, as the database holds them."""
    store = any_store
    table = new_table(
        code="SAME2345", host="Sara", token_hash="a" * 64, bots=["easy"], seat_count=2, options={}, now=NOW
    )
    await store.create_room(table, now=NOW)
    table = await _commit(store, commands.start_game(table, seed=5, public_id="same0005", at=NOW))
    assert table.game is not None
    inside = commands.play(table, seat=table.game.turn, action=Draw("stock"), at=NOW, client_id="in")
    table = await _commit(store, inside)
    assert table.game is not None
    card = Discard(table.game.hands[table.game.turn][0])
    ends = commands.play(table, seat=table.game.turn, action=card, at=NOW, client_id="end")
    scored = replace(ends.write, round_scores=(RoundScore(1, 0, "Sara", 0),))
    await _commit(store, replace(ends, write=scored))
    cast = "CAST(action AS TEXT)" if store.engine.dialect.name == "postgresql" else "action"
    query = f"select {cast}, CAST(created_at AS TEXT), version from actions order by seq"  # noqa: S608
    async with store.engine.connect() as conn:
        rows = (await conn.execute(text(query))).all()
    assert [row.version for row in rows] == [3, 4]
    (inside_action, inside_at, _), (end_action, end_at, _) = rows
    assert inside_at == end_at  # the same moment, stored the same way
    # The two actions differ in their fields; their JSON text is laid out alike (one serializer: the
    # column type's own).
    assert (": " in inside_action) == (": " in end_action) and (", " in inside_action) == (", " in end_action)


async def test_a_round_end_stores_its_snapshot_and_scores_or_nothing(any_store: Store) -> None:
    """A move that ends a round (on PostgreSQL one statement) stores the log row, the room's and the game's
    version, the game's snapshot and every seat's score row; the same move again (a stale version) stores
    none of them."""
    store = any_store
    table = new_table(
        code="ROND2345",
        host="Sara",
        token_hash="a" * 64,
        bots=["easy", "hard"],
        seat_count=3,
        options={},
        now=NOW,
    )
    await store.create_room(table, now=NOW)
    table = await _commit(store, commands.start_game(table, seed=7, public_id="rond0007", at=NOW))
    assert table.game is not None and table.game_id is not None
    table = await _commit(
        store, commands.play(table, seat=table.game.turn, action=Draw("stock"), at=NOW, client_id="d1")
    )
    assert table.game is not None
    card = Discard(table.game.hands[table.game.turn][0])
    ends = commands.play(table, seat=table.game.turn, action=card, at=NOW, client_id="e1")
    scores = tuple(RoundScore(1, s.index, s.name, 10 * s.index, s.index == 2) for s in table.seats)
    ending = replace(ends, write=replace(ends.write, round_scores=scores))
    after = await _commit(store, ending)
    query = (
        "select version, status, finished_at, CAST(state AS TEXT) from games where id = :id",
        "select round, seat, name, penalty, went_out from round_scores where game_id = :id order by seat",
    )
    async with store.engine.connect() as conn:
        game = (await conn.execute(text(query[0]), {"id": table.game_id})).one()
        rows = [tuple(r) for r in (await conn.execute(text(query[1]), {"id": table.game_id})).all()]
    assert game[:3] == (after.version, "playing", None)
    assert json.loads(game[3]) == ending.write.state.to_dict()
    assert rows == [
        (1, 0, "Sara", 0, False),
        (1, 1, scores[1].name, 10, False),
        (1, 2, scores[2].name, 20, True),
    ]
    loaded = await store.load_table(table.code)
    assert loaded is not None and loaded.table.game == after.game and "e1" in loaded.acks

    with pytest.raises(VersionConflict):  # the same move again: the room is no longer where it started
        await store.commit(replace(ending, write=replace(ending.write, client_id="e2")))
    async with store.engine.connect() as conn:
        again = (await conn.execute(text(query[0]), {"id": table.game_id})).one()
        count = (await conn.execute(text("select count(*) from round_scores"))).scalar_one()
        logged = (await conn.execute(text("select count(*) from actions"))).scalar_one()
    assert again == game and count == 3 and logged == 2
    assert await store.version_of(table.code) == after.version


def test_the_dialect_is_named_by_the_url() -> None:
    from app.store.dialect import Dialect

    assert Dialect.of("sqlite:///data/t.db") is Dialect.SQLITE
    assert Dialect.of("sqlite+aiosqlite://") is Dialect.SQLITE
    assert Dialect.of("postgresql://u@h/db") is Dialect.POSTGRESQL
    assert Dialect.of("postgres://u@h/db") is Dialect.POSTGRESQL
    with pytest.raises(ValueError, match="unsupported database 'mysql'"):
        Dialect.of("mysql://u@h/db")


@pytest.mark.postgres
async def test_a_refused_write_is_told_apart_from_a_database_that_is_away() -> None:
    """PostgreSQL refuses a value longer than its column. The store says so (WriteRefused), and the room
    then answers ``internal_error`` rather than "the database did not answer". Names never get this far:
    ``clean_name`` refuses a name whose folded forms would not fit (tests/api/test_long_names.py)."""
    async with fresh_pg_database() as url:
        await run_migrations(url)
        store = Store(url)
        try:
            table = new_table(
                code="LONG2345", host="Sara", token_hash="a" * 64, bots=[], seat_count=2, options={}, now=NOW
            )
            await store.create_room(table, now=NOW)
            # Past the door's check: 22 "ﬃ" ligatures fold to 66 letters, two more than the columns hold.
            table = await _commit(
                store, commands.seat_person(table, name="\ufb03" * 22, token_hash="b" * 64, at=NOW)
            )
            with pytest.raises(WriteRefused):
                await store.commit(commands.start_game(table, seed=3, public_id="long0003", at=NOW))
            assert await store.version_of(table.code) == table.version  # nothing of it was written
        finally:
            await store.close()
