"""An evicted room leaves nothing that only the cycle collector could free (issue 39's soak).

The server's collector freezes whatever survives each of its runs (``app.runtime``): an object that is part
of a reference cycle when it dies is freed only by the deep clean, at most once an hour. A room's driver,
follower and presence throttle hold the room back, so every room evicted after ten idle minutes stayed, with
its game, its acks and its chat (in the 30-minute soak: the AckRecords, lists and tuples a full collection
freed at the end). Closed, a room is now freed by reference counting alone: these tests evict rooms with the
collector off, as in the server where the rooms are frozen.
"""

from __future__ import annotations

import asyncio
import weakref
from pathlib import Path

from app.config import Settings
from app.engine.game import RoundResult
from app.engine.options import ROUNDS
from app.rooms import Room, RoomManager
from app.store import AckRecord, Store, run_migrations
from tests.collector import alive, collector_off

from .fakes import ManualClock
from .test_room import play_to_the_end, seated


async def evicted(manager: RoomManager, room: Room) -> weakref.ref[Room]:
    """Evict ``room`` (its sockets gone, idle long enough) with the collector off; a weak reference to it."""
    gone = weakref.ref(room)
    assert await manager.evict_idle() == 1 and room.code not in manager.rooms
    return gone


async def test_an_evicted_room_in_its_lobby_is_freed_at_once(
    manager: RoomManager, clock: ManualClock
) -> None:
    room, host, _token = await seated(manager, seats=3, bots=["easy"])
    await host.say({"type": "chat", "text": "hi"})
    await room.detach(host.conn)
    await clock.advance(manager.settings.room_idle_seconds)
    with collector_off():
        gone = await evicted(manager, room)
        del room, host
        assert gone() is None, "the closed room is still alive: only a collection would free it"


async def test_an_evicted_finished_game_is_freed_at_once(sqlite_url: str, sqlite_at_head: Path) -> None:
    await run_migrations(sqlite_url)
    store = Store(sqlite_url)
    settings = Settings(_env_file=None, database_url=sqlite_url, bot_delay_ms=0, room_idle_seconds=1)
    manager = RoomManager(store=store, settings=settings)
    try:
        room, host, _token = await seated(manager, seats=2, bots=["random"])
        await host.say({"type": "start"})
        await play_to_the_end(room, host)
        assert room.acks, "the host's moves left their acks"
        await room.detach(host.conn)
        await asyncio.sleep(1.1)  # idle for ROOM_IDLE_SECONDS
        with collector_off():
            acks, results = alive(AckRecord), alive(RoundResult)
            held = len(room.acks)
            gone = await evicted(manager, room)
            del room, host
            assert gone() is None, "the closed room is still alive: only a collection would free it"
            assert alive(AckRecord) == acks - held, "the game's acks stayed"
            assert alive(RoundResult) == results - ROUNDS, "the game's rounds stayed"
    finally:
        await manager.close()
        await store.close()
