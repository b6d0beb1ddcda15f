"""A browser's tables read from the store, on SQLite and PostgreSQL: one statement for any number of tables,
through indexes only, and only where the token holds a seat (its own, one a bot plays for it, one it asked
for)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import event

from app.rooms import hash_token
from app.store import ChatBound, ChatRecord, Store, TableAsk
from app.store.my_tables import query
from app.table import Table, commands
from app.table.commands import new_table

NOW = datetime(2026, 12, 6, 9, 0, tzinfo=UTC)
BOUND = ChatBound(50, 16_384)


@pytest.fixture
async def store(migrated_url: str) -> AsyncIterator[Store]:
    store = Store(migrated_url)
    yield store
    await store.close()


async def commit(store: Store, change: Any) -> Table:
    game_id = await store.commit(change)
    return commands.with_game_id(change, game_id).table if game_id is not None else change.table


async def table_of(
    store: Store, code: str, host: str, *, guest: str | None = None, start: bool = False, pace: Any = "live"
) -> Table:
    """A room with ``host`` (token ``host``) and a bot, or ``guest`` (token ``guest``) in the second seat."""
    table = new_table(
        code=code,
        host=host.title(),
        token_hash=hash_token(host),
        bots=[] if guest else ["normal"],
        seat_count=2,
        options={"pace": pace},
        now=NOW,
    )
    await store.create_room(table, now=NOW)
    if guest:
        joined = commands.join(table, name=guest.title(), token_hash=hash_token(guest), at=NOW)
        assert joined is not None
        table = await commit(store, joined)
    if start:
        table = await commit(
            store, commands.start_game(table, seed=7, public_id=f"{code.lower()}0007", at=NOW)
        )
    return table


def ask(code: str, token: str, read: datetime | None = None) -> TableAsk:
    return TableAsk(code, hash_token(token), read)


async def test_one_read_answers_each_table_the_token_holds_a_seat_at(store: Store) -> None:
    table = await table_of(store, "SARA2345", "sara", guest="omid", start=True, pace=24)
    await table_of(store, "OMID2345", "omid")
    await table_of(store, "NIMA2345", "nima")
    for n, (seat, said) in enumerate([(0, "hi"), (1, "salam"), (1, "khubi?")]):
        await store.add_chat("SARA2345", ChatRecord(seat, "x", said, NOW + timedelta(minutes=n)), BOUND)
    asks = [
        ask("SARA2345", "omid", NOW + timedelta(minutes=1)),  # read up to the second line
        ask("OMID2345", "omid"),
        ask("NIMA2345", "omid"),  # not his table: nothing
        ask("GONE2345", "omid"),  # no such room
        ask("SARA2345", "nima"),  # not his seat
    ]
    found = await store.my_tables(asks)
    assert [t.code for t in found] == ["SARA2345", "OMID2345"]
    sara, own = found
    assert (sara.seat, sara.held, sara.host_seat, sara.status) == (1, "you", 0, "playing")
    assert [(p.seat, p.name, p.bot) for p in sara.players] == [(0, "Sara", False), (1, "Omid", False)]
    assert sara.options["pace"] == 24 and (sara.game_number, sara.round) == (1, 1)
    assert table.game is not None and sara.turn_seat == table.game.turn
    assert sara.chat_latest == NOW + timedelta(minutes=2)
    assert sara.chat_unread == 0  # after the read mark only his own line
    assert (own.seat, own.held, own.status, own.turn_seat, own.due_at, own.game_number) == (
        0, "you", "lobby", None, None, None,
    )  # fmt: skip
    assert [(p.name, p.bot) for p in own.players] == [("Omid", False), ("Bot 2", True)]
    assert (own.chat_latest, own.chat_unread) == (None, 0)
    # Sara, who read nothing: both of Omid's lines are unread (her own is not).
    (mine,) = await store.my_tables([ask("SARA2345", "sara")])
    assert (mine.seat, mine.chat_unread) == (0, 2)


async def test_a_seat_a_bot_plays_for_its_person_and_a_request_are_theirs(store: Store) -> None:
    table = await table_of(store, "LEFT2345", "sara", guest="omid")
    table = await commit(store, commands.leave(table, index=1, at=NOW, away={}))
    (left,) = await store.my_tables([ask("LEFT2345", "omid")])
    assert (left.seat, left.held) == (1, "bot")
    assert left.players[1].bot and left.players[1].name == "Omid"
    bots = await table_of(store, "BOTS2345", "sara")
    await commit(
        store, commands.request_seat(bots, index=1, name="Nima", token_hash=hash_token("nima"), at=NOW)
    )
    (asked,) = await store.my_tables([ask("BOTS2345", "nima")])
    assert (asked.seat, asked.held) == (1, "asked")


def counting(store: Store) -> list[str]:
    statements: list[str] = []
    event.listen(store.engine.sync_engine, "before_cursor_execute", lambda *args: statements.append(args[2]))
    return statements


@pytest.mark.parametrize("tables", [1, 5, 30])
async def test_one_statement_however_many_tables(store: Store, tables: int) -> None:
    codes = [f"T{n:03d}ABCD" for n in range(tables)]
    for code in codes:
        await table_of(store, code, "sara", guest="omid", start=True)
        await store.add_chat(code, ChatRecord(0, "Sara", "hi", NOW), BOUND)
    statements = counting(store)
    found = await store.my_tables([ask(code, "omid") for code in codes])
    assert [t.code for t in found] == codes and all(t.chat_unread == 1 for t in found)
    assert len(statements) == 1, statements


TABLES = ("seats", "mine_seat", "rooms", "games", "chat_lines")


async def test_the_read_goes_through_indexes_only(store: Store) -> None:
    """No table is scanned whole: seats by their room, rooms and games by their keys, chat by its room
    (PostgreSQL: with sequential scans made dear, so that the plan shows an index exists for each)."""
    for n in range(3):
        await table_of(store, f"PLAN{n}ABC", "sara", guest="omid", start=True)
    statement = query([ask(f"PLAN{n}ABC", "omid", NOW) for n in range(3)])
    compiled = statement.compile(dialect=store.engine.dialect)
    values = compiled.construct_params()
    params = tuple(values[name] for name in compiled.positiontup or ())
    async with store.engine.connect() as conn:
        if store.dialect.value == "sqlite":
            rows = await conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {compiled}", params)
            plan = "\n".join(str(r[-1]) for r in rows)
            scans = [line for line in plan.splitlines() if line.startswith("SCAN ")]
            assert not [line for line in scans if line.split()[1] in TABLES], plan
            assert "ix_seats_room_code" in plan or "uq_seats_room_index" in plan, plan
        else:
            await conn.exec_driver_sql("SET enable_seqscan = off")
            plan = "\n".join(r[0] for r in await conn.exec_driver_sql(f"EXPLAIN {compiled}", params))
            assert not [t for t in TABLES if f"Seq Scan on {t}" in plan], plan
