"""A peer's heartbeat is read for the tables it speaks of now or spoke of before, and no others: behind the
hashing balancer a process holds tables no peer has sockets at, and reading each of them against every
peer's heartbeat, twice a second, cost every process work in proportion to all the tables it holds."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from app.config import Settings
from app.rooms import RoomManager, peers
from app.rooms.broadcast import EVERY_ROOM, Notice
from app.store import Store
from app.table import Table
from tests.conftest import at_head

from .fakes import SharedButSilent


@pytest.fixture
async def manager(sqlite_url: str, sqlite_at_head: Path) -> AsyncIterator[RoomManager]:
    """A process told that other processes exist."""
    at_head(sqlite_url, sqlite_at_head)
    store = Store(sqlite_url)
    settings = Settings(_env_file=None, database_url=sqlite_url)  # type: ignore[call-arg]
    made = RoomManager(store=store, settings=settings, broadcaster=SharedButSilent())
    yield made
    await made.close()
    await store.close()


def heartbeat(tables: dict[str, list[int]]) -> Notice:
    """Process "peer" says which seats have a socket through it at each table."""
    said = {code: {"process": "peer", "seats": seats, "spectators": 0} for code, seats in tables.items()}
    return Notice(EVERY_ROOM, "here", 0, {"process": "peer", "tables": said})


async def test_a_heartbeat_reads_the_tables_it_names_or_named_and_leaves_the_others(
    manager: RoomManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, _ = await manager.create(name="Ann", seat_count=2, bots=[], options={})
    other, _ = await manager.create(name="Cy", seat_count=2, bots=[], options={})
    assert (await first.join("Bob"))[0] == 1
    read: list[str] = []
    here_said = peers.here_said

    def counted(payload: dict[str, Any], table: Table, *, max_spectators: int) -> peers.HereSaid | None:
        read.append(table.code)
        return here_said(payload, table, max_spectators=max_spectators)

    monkeypatch.setattr(peers, "here_said", counted)

    manager._heard_heartbeat(heartbeat({first.code: [1]}))  # Bob is at the first table through "peer"
    assert first.presence.connected_seats() == {1}
    assert read == [first.code], "the other table, of which the peer said nothing, was not read"

    read.clear()
    manager._heard_heartbeat(heartbeat({}))  # Bob left: the peer names no table now
    assert first.presence.connected_seats() == set(), "what the peer said before is taken back"
    assert read == [first.code]
    assert other.presence.connected_seats() == set()

    read.clear()
    manager._heard_heartbeat(heartbeat({}))
    assert read == [], "nothing said now or before: nothing read"
