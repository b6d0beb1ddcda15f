"""With several processes, a seat request that nobody stands behind goes, wherever its asker watched from.
Each process says in its presence which bots' seats have the asker of their pending request watching through
it (``askers``), so the process that drives the table drops a request made over REST that no socket ever
came for after REQUEST_WAIT_SECONDS, keeps one whose asker watches through another process, and drops that
one too once that process falls silent (it died) and the wait has passed again."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.config import Settings
from app.rooms import Room, RoomManager, peers
from app.store import Store
from tests.conftest import at_head

from .fakes import FakeSocket, ManualClock, SharedButSilent, wait_until

WAIT = 60  # REQUEST_WAIT_SECONDS, the default


@pytest.fixture
async def processes(
    sqlite_url: str, sqlite_at_head: Path, clock: ManualClock
) -> AsyncIterator[tuple[RoomManager, RoomManager]]:
    """Two processes on one database and one clock, each told that the other exists (as with Redis); what
    one says of its sockets reaches the other only when the test passes it on (``tell``)."""
    at_head(sqlite_url, sqlite_at_head)
    made: list[tuple[RoomManager, Store]] = []
    for _ in range(2):
        store = Store(sqlite_url)
        settings = Settings(_env_file=None, database_url=sqlite_url, request_wait_seconds=WAIT)  # type: ignore[call-arg]
        made.append(
            (RoomManager(store=store, settings=settings, clock=clock, broadcaster=SharedButSilent()), store)
        )
    yield made[0][0], made[1][0]
    for manager, store in made:
        await manager.close()
        await store.close()


def tell(here: Room, there: Room, there_process: str) -> None:
    """``there``'s heartbeat about the table, read by ``here`` as a notice from another process is."""
    payload = peers.here(there_process, there.table, there.presence)
    said = peers.here_said(payload, here.table, max_spectators=here.settings.max_spectators_per_table)
    assert said is not None
    here.follower.heard_heartbeat(said)


async def test_a_request_nobody_stands_behind_goes_whichever_process_its_asker_used(
    processes: tuple[RoomManager, RoomManager], clock: ManualClock
) -> None:
    near, far = processes
    room, host_token = await near.create(name="Ann", seat_count=3, bots=["easy", "easy"], options={})
    host = FakeSocket(room)
    await host.say({"type": "hello", "token": host_token})
    made = clock.now()
    _, eve = await room.join("Eve", seat=1)  # over REST: no socket ever comes for it
    _, fay = await room.join("Fay", seat=2)  # over REST, and Fay then watches through the other process
    assert eve and fay
    there = await far.get(room.code)
    assert there is not None
    fay_socket = FakeSocket(there)
    welcome = (await fay_socket.say({"type": "hello", "token": fay}))[0]
    assert welcome["type"] == "welcome" and welcome["requested_seat"] == 2
    tell(room, there, "far")
    assert room.waiting_requests() == {1: made}, "Fay's asker watches through the other process"

    await clock.advance(WAIT - 1)
    tell(room, there, "far")
    await clock.advance(2)
    await wait_until(lambda: room.table.seats[1].claim is None)
    assert room.table.seats[2].claim is not None and room.table.seats[2].claim.name == "Fay"
    stored = await near.store.load_table(room.code)
    assert stored is not None and stored.table.seats[1].claim is None

    # The other process dies: nobody vouches for Fay's asker from then, and her request goes a wait later.
    died = clock.now()
    room.follower.forget_silent(clock.steady() + 1)
    assert room.waiting_requests() == {2: died}
    await clock.advance(WAIT - 1)
    assert room.table.seats[2].claim is not None
    await clock.advance(2)
    await wait_until(lambda: room.table.seats[2].claim is None)
    assert [s.name for s in room.table.seats] == ["Ann", "Bot 2", "Bot 3"]
