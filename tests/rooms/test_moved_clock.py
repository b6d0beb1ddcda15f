"""A process whose clock a test moves on (``CLOCK_OFFSET_FILE``: ``OffsetClock``) still hears its peers: their
silence is measured on ``Clock.steady``, which the move leaves alone, so hours passing at once are no
silence. Before, a move of more than ``SILENT_AFTER_SECONDS`` made every process think its peers had died and
forget, until their next heartbeat, the sockets they hold: a person at the table through another process
counted as away (a turn notification could reach them while they played)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.config import Settings
from app.rooms import RoomManager, paced
from app.rooms import manager as manager_module
from app.rooms.broadcast import EVERY_ROOM, Notice
from app.rooms.clock import OffsetClock, SystemClock
from app.store import Store
from tests.conftest import at_head

from .fakes import SharedButSilent

HOURS = 5 * 3600.0
READ = 0.06  # an OffsetClock reads its file at most every 50 ms


@pytest.fixture
def offset(tmp_path: Path) -> Path:
    path = tmp_path / "clock-offset"
    path.write_text("0")
    return path


@pytest.fixture
async def moved(sqlite_url: str, sqlite_at_head: Path, offset: Path) -> AsyncIterator[RoomManager]:
    """A process (told other processes exist) on a clock the file ``offset`` moves."""
    at_head(sqlite_url, sqlite_at_head)
    store = Store(sqlite_url)
    settings = Settings(_env_file=None, database_url=sqlite_url)  # type: ignore[call-arg]
    manager = RoomManager(
        store=store, settings=settings, clock=OffsetClock(str(offset)), broadcaster=SharedButSilent()
    )
    yield manager
    await manager.close()
    await store.close()


async def test_an_offset_clock_moves_now_and_monotonic_but_not_steady(offset: Path) -> None:
    clock = OffsetClock(str(offset))
    now, monotonic, steady = clock.now(), clock.monotonic(), clock.steady()
    offset.write_text(str(HOURS))
    await asyncio.sleep(READ)
    assert (clock.now() - now).total_seconds() >= HOURS
    assert clock.monotonic() - monotonic >= HOURS
    assert 0 <= clock.steady() - steady < 60, "the time peers have been silent is real time"
    assert abs(clock.steady() - time.monotonic()) < 1
    assert abs(SystemClock().steady() - time.monotonic()) < 1


def heartbeat(process: str, code: str, seats: list[int]) -> Notice:
    """Another process's heartbeat: ``seats`` of table ``code`` have a socket there."""
    tables = {code: {"process": process, "seats": seats, "spectators": 0}}
    return Notice(EVERY_ROOM, "here", 0, {"process": process, "tables": tables})


async def test_a_clock_moved_by_hours_leaves_a_peer_alive_and_the_sockets_it_holds_counted(
    moved: RoomManager, offset: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    room, _ = await moved.create(name="Ann", seat_count=2, bots=[], options={"pace": 24})
    assert (await room.join("Bob"))[0] == 1
    moved._heard_heartbeat(heartbeat("far", room.code, [1]))  # Bob is at the table through "far"
    assert paced.has_socket(moved, room.code, 1)
    assert room.presence.connected_seats() == {1}

    offset.write_text(str(HOURS))  # hours pass at once, a moment after "far"'s heartbeat
    await asyncio.sleep(READ)
    assert moved.forget_silent() == [], "a peer heard a moment ago has not died"
    assert "far" in moved.peers
    assert paced.has_socket(moved, room.code, 1), "Bob is at the table: no turn notification for him"
    assert room.presence.connected_seats() == {1}
    assert 1 not in room.presence.away(room.table)

    # Silence itself still counts: a peer not heard from for the time it takes is forgotten.
    monkeypatch.setattr(manager_module, "SILENT_AFTER_SECONDS", READ / 2)
    await asyncio.sleep(READ)
    assert moved.forget_silent() == ["far"]
    assert not paced.has_socket(moved, room.code, 1)
    assert room.presence.connected_seats() == set()
