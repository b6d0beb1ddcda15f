"""The pause between rounds at a live table, on a manual clock: no turn is played for anyone while the
players read the results; Continue from everyone present ends it early; bots wait; a restart resumes it."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest

from app.config import Settings
from app.rooms import Room, RoomManager, peers
from app.store import Store, run_migrations
from app.table import NO_PAUSE
from app.table.schedule import turn_deadline

from .fakes import FakeSocket, ManualClock, wait_until
from .test_timers import iso, play_turn, settle, two_people

BREAK = 20


def paused_settings(sqlite_url: str) -> Settings:
    return Settings(  # type: ignore[call-arg]
        _env_file=None, database_url=sqlite_url, bot_delay_ms=700, round_break_seconds=BREAK
    )


@pytest.fixture
async def paused(sqlite_url: str, clock: ManualClock) -> AsyncIterator[RoomManager]:
    """A room manager whose tables pause for 20 s between rounds."""
    await run_migrations(sqlite_url)
    store = Store(sqlite_url)
    manager = RoomManager(store=store, settings=paused_settings(sqlite_url), clock=clock)
    yield manager
    await manager.close()
    await store.close()


async def finish_round(room: Room, sockets: list[FakeSocket]) -> None:
    """The people play (as normal bots would) until the round ends and the next one is dealt."""
    assert room.table.game is not None
    rounds = len(room.table.game.results)
    while len(room.table.game.results) == rounds:
        await play_turn(room, sockets[room.table.game.turn])


def rooms_seen(sock: FakeSocket) -> list[dict[str, Any]]:
    """The room info of the states and presences ``sock`` got since last asked."""
    return [m["room"] for m in sock.drain() if m["type"] in ("state", "presence")]


def latest_room(sock: FakeSocket) -> dict[str, Any]:
    """The room info ``sock`` holds now (the last state or presence it ever got)."""
    sock.drain()
    return [m["room"] for m in sock.seen if m["type"] in ("state", "presence")][-1]


async def test_no_turn_is_played_during_the_pause_and_the_timer_starts_after_it(
    paused: RoomManager, clock: ManualClock
) -> None:
    room, sockets, _ = await two_people(paused, timer=30)
    await finish_round(room, sockets)
    assert room.table.game is not None and room.table.game.round == 2
    version = room.table.version
    last = latest_room(sockets[0])
    assert last["break_until"] == iso(clock, BREAK) and last["continued"] == []
    assert last["turn_deadline"] == iso(clock, BREAK + 30), "the turn timer starts when the pause ends"

    await clock.advance(BREAK + 29.9)  # before the fix, the timer played this turn after 30 s
    await settle()
    assert room.table.version == version, "a turn was played during the pause (or too early after it)"
    seat = room.table.game.turn
    await clock.advance(0.2)
    await wait_until(lambda: room.table.version == version + 2)
    states = [m for m in sockets[seat].drain() if m["type"] == "state"]
    played = [e for m in states for e in m["events"] if e.get("seat") == seat]
    assert played and all(e["auto"] is True for e in played), "a move played for a person says so"
    assert states[-1]["room"]["break_until"] is None


async def test_the_pause_ends_early_when_every_present_player_continues(
    paused: RoomManager, clock: ManualClock
) -> None:
    room, sockets, _ = await two_people(paused, timer=30)
    await finish_round(room, sockets)
    version = room.table.version
    await clock.advance(3)
    await sockets[0].say({"type": "continue"})
    seen = rooms_seen(sockets[1])[-1]
    assert seen["continued"] == [0] and seen["break_until"] == iso(clock, BREAK - 3)
    await sockets[0].say({"type": "continue"})  # pressed twice: nothing more
    assert rooms_seen(sockets[1]) == []
    await clock.advance(2)
    await sockets[1].say({"type": "continue"})
    seen = rooms_seen(sockets[0])[-1]
    assert seen["break_until"] is None and seen["continued"] == []
    assert seen["turn_deadline"] == iso(clock, 30), "the first turn's clock starts when the pause ends"
    assert room.table.version == version, "Continue moves no version (nothing is stored)"
    await clock.advance(30)
    await wait_until(lambda: room.table.version == version + 2)


async def test_a_player_who_leaves_is_not_waited_for(paused: RoomManager, clock: ManualClock) -> None:
    room, sockets, _ = await two_people(paused, timer=30)
    await finish_round(room, sockets)
    await sockets[0].say({"type": "continue"})
    await room.detach(sockets[1].conn)
    seen = rooms_seen(sockets[0])[-1]
    assert seen["break_until"] is None
    assert room.table.pause.ended == clock.now()


async def test_bots_wait_for_the_pause(paused: RoomManager, clock: ManualClock) -> None:
    room, host_token = await paused.create(name="Host", seat_count=2, bots=["easy"], options={})
    host = FakeSocket(room)
    await host.say({"type": "hello", "token": host_token})
    await host.say({"type": "start"})
    assert room.table.game is not None
    # Rounds until one ends with the bot to play first in the next (the deal passes to the left).
    while True:
        rounds = len(room.table.game.results)
        while len(room.table.game.results) == rounds:
            if room.table.game.turn == 0:
                await play_turn(room, host)
            else:
                before = room.table.version
                await clock.advance(BREAK + 1)  # past any pause: the bot moves after its delay
                await wait_until(lambda v=before: room.table.version > v)  # type: ignore[misc]
        if room.table.game.turn == 1:
            break
    version = room.table.version
    await clock.advance(BREAK - 1)
    await settle()
    assert room.table.version == version, "the bot played during the pause"
    await host.say({"type": "continue"})  # the only person present: the pause ends, the bot plays
    await clock.advance(0.69)
    await settle()
    assert room.table.version == version
    await clock.advance(0.02)
    await wait_until(lambda: room.table.version > version)


async def test_a_restart_during_the_pause_resumes_its_countdown(
    paused: RoomManager, clock: ManualClock, sqlite_url: str
) -> None:
    room, sockets, tokens = await two_people(paused, timer=30)
    await finish_round(room, sockets)
    ended = clock.now()
    await sockets[0].say({"type": "continue"})
    version = room.table.version
    await clock.advance(5)
    await paused.close()

    store = Store(sqlite_url)
    second = RoomManager(store=store, settings=paused_settings(sqlite_url), clock=clock)
    try:
        again = await second.get(room.code)
        assert again is not None and again.table.version == version
        back = FakeSocket(again)
        info = (await back.say({"type": "hello", "token": tokens[0]}))[-1]["room"]
        # Who pressed Continue is not stored: the pause runs its countdown from the round's stored end.
        assert info["break_until"] == iso(clock, BREAK - 5) and info["continued"] == []
        assert again.table.turn_started == ended
        await clock.advance(BREAK - 5 + 29.9)
        await settle()
        assert again.table.version == version, "a turn was played during (or too soon after) the pause"
        await clock.advance(0.2)
        await wait_until(lambda: again.table.version == version + 2)
    finally:
        await second.close()
        await store.close()


async def test_another_process_hears_who_continued(
    paused: RoomManager, clock: ManualClock, sqlite_url: str
) -> None:
    room, sockets, _ = await two_people(paused, timer=30)
    await finish_round(room, sockets)
    await clock.advance(2)
    for sock in sockets:
        await sock.say({"type": "continue"})
    assert room.table.pause.ended == clock.now()
    said = json.loads(json.dumps(peers.here("another", room.table, room.presence)))  # as Redis carries it

    store = Store(sqlite_url)
    second = RoomManager(store=store, settings=paused_settings(sqlite_url), clock=clock)
    try:
        there = await second.get(room.code)
        assert there is not None and there.table.pause == NO_PAUSE
        heard = peers.here_said(said, there.table, max_spectators=10)
        assert heard is not None and there.follower.heard_here(heard)
        assert there.table.pause == room.table.pause
        deadline = clock.now() + timedelta(seconds=30)
        assert turn_deadline(there.table, there.timing) == turn_deadline(room.table, room.timing) == deadline
    finally:
        await second.close()
        await store.close()
