"""Turn notifications from real play (issue 35): at a paced table, the person whose turn it is gets "your
turn" on their subscribed device only while no socket of theirs is open there, once per turn however often
the manager looks, and one last reminder when an hour is left; the host's name is the table's. On a manual
clock, through the test push service, on both databases."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from app.config import Settings
from app.push import Pusher
from app.rooms import Room, RoomManager, hash_token, paced
from app.store import PushSubscription, Store
from tests.push_service import PushService
from tests.rooms.fakes import FakeSocket, ManualClock
from tests.rooms.test_moved_clock import heartbeat
from tests.rooms.test_paced import HOUR, paced_pair
from tests.rooms.test_timers import play_turn, settle


@pytest.fixture
async def table(store: Store, service: PushService) -> AsyncIterator[tuple[RoomManager, Pusher]]:
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, bot_delay_ms=700, push_allowed_hosts=f"127.0.0.1:{service.port}"
    )
    manager = RoomManager(store=store, settings=settings, clock=ManualClock())
    pusher = Pusher(store, settings)
    pusher.start()
    manager.nudger = pusher
    yield manager, pusher
    await manager.close()
    await pusher.close()


async def subscribe(store: Store, service: PushService, code: str, token: str, device: str) -> None:
    browser = service.subscription(device)
    keys = browser["keys"]
    sub = PushSubscription(
        code, hash_token(token), device, browser["endpoint"], keys["p256dh"], keys["auth"], "en"
    )
    assert await store.push_subscribe(sub, now=ManualClock().now()) == "subscribed"


async def away_on_turn(
    manager: RoomManager, store: Store, service: PushService, *, hours: int
) -> tuple[Room, int]:
    """A paced table of two under way whose person on turn has a device subscribed ("on-turn") and has just
    closed their socket: the room, and the seat on turn."""
    room, sockets, tokens = await paced_pair(manager, hours=hours)
    assert room.table.game is not None
    turn = room.table.game.turn
    await subscribe(store, service, room.code, tokens[turn], "on-turn")
    await room.detach(sockets[turn].conn)
    return room, turn


async def look(manager: RoomManager, pusher: Pusher) -> int:
    queued = await paced.nudge_turns(manager)
    await pusher.drain()
    return queued


async def test_the_person_on_turn_is_nudged_once_while_away_and_reminded_with_an_hour_left(
    table: tuple[RoomManager, Pusher], store: Store, service: PushService
) -> None:
    manager, pusher = table
    clock: Any = manager.clock
    room, sockets, tokens = await paced_pair(manager, hours=8)
    assert room.table.game is not None
    turn = room.table.game.turn
    await subscribe(store, service, room.code, tokens[turn], "on-turn")
    await subscribe(store, service, room.code, tokens[1 - turn], "waiting")

    await look(manager, pusher)
    assert service.at("on-turn") == [], "their socket is open: no notification"

    await room.detach(sockets[turn].conn)
    await clock.advance(60)
    for _ in range(3):  # the manager looks every PACE_WAKE_SECONDS: once per turn all the same
        await look(manager, pusher)
    (note,) = service.at("on-turn")
    assert note.payload["title"] == "Your turn at Host’s table"
    assert note.payload["url"] == f"/r/{room.code}"
    assert service.at("waiting") == [], "not their turn"

    await clock.advance(7 * HOUR - 30)  # 59.5 minutes left
    await look(manager, pusher)
    await look(manager, pusher)
    first, reminder = service.at("on-turn")
    assert reminder.payload["title"] == "An hour left for your turn at Host’s table"

    await clock.advance(HOUR)  # the time runs out: the server plays the turn, and it passes
    await settle()
    await asyncio.sleep(0.05)
    assert room.table.game.turn == 1 - turn
    await room.detach(sockets[1 - turn].conn)
    await look(manager, pusher)
    assert service.at("waiting") == [], "a turn begun this instant: another process may not have said yet"
    await clock.advance(paced.TURN_SETTLES.total_seconds())  # that the person has a socket open there
    await look(manager, pusher)
    assert len(service.at("waiting")) == 1, "now their turn, and away"
    assert len(service.at("on-turn")) == 2


async def test_at_a_one_hour_pace_the_turn_is_notified_but_never_reminded(
    table: tuple[RoomManager, Pusher], store: Store, service: PushService
) -> None:
    """A one-hour turn is its last hour from its start: "your turn" says it all, and no "an hour left"
    follows, however often the manager looks, up to the turn's end."""
    manager, pusher = table
    clock: Any = manager.clock
    room, turn = await away_on_turn(manager, store, service, hours=1)
    assert room.table.game is not None
    for minutes in (10, 10, 10, 10, 10, 9):  # up to the turn's last minute
        await clock.advance(minutes * 60)
        await look(manager, pusher)
    assert room.table.game.turn == turn, "the turn is still under way"
    assert [n.payload["title"] for n in service.at("on-turn")] == ["Your turn at Host’s table"]


async def test_the_last_hour_is_reminded_only_once_a_socket_opened_elsewhere_just_before_is_heard(
    table: tuple[RoomManager, Pusher], store: Store, service: PushService
) -> None:
    """The reminder waits as "your turn" does: at the instant the last hour begins, a person who opened the
    table through another process a moment before may not be in its heartbeat yet."""
    manager, pusher = table
    clock: Any = manager.clock
    room, turn = await away_on_turn(manager, store, service, hours=8)
    await clock.advance(60)
    await look(manager, pusher)
    assert len(service.at("on-turn")) == 1, "your turn"
    await clock.advance(7 * HOUR - 60)  # the last hour begins
    await look(manager, pusher)
    assert len(service.at("on-turn")) == 1, (
        "an hour begun this instant: another process may not have said yet"
    )
    manager._heard_heartbeat(heartbeat("far", room.code, [turn]))  # it says now: they are at the table there
    await clock.advance(paced.TURN_SETTLES.total_seconds())
    await look(manager, pusher)
    assert len(service.at("on-turn")) == 1, "at the table: no reminder"


async def test_a_socket_back_at_the_table_means_no_nudge(
    table: tuple[RoomManager, Pusher], store: Store, service: PushService
) -> None:
    manager, pusher = table
    room, sockets, tokens = await paced_pair(manager, hours=24)
    assert room.table.game is not None
    turn = room.table.game.turn
    await subscribe(store, service, room.code, tokens[turn], "phone")
    await room.detach(sockets[turn].conn)
    back = FakeSocket(room)
    await back.say({"type": "hello", "token": tokens[turn]})
    assert await look(manager, pusher) == 0
    assert service.at("phone") == []


async def test_a_three_player_table_at_24_hours_a_turn_is_played_over_days_to_its_end(
    store: Store, service: PushService
) -> None:
    """Nobody is connected between moves: each person comes back when told it is their turn, plays it and
    goes; every fifth turn is left to run out instead. Half way, the process is replaced by a new one (the
    restart: nothing of the first in memory). Every "your turn" that arrives is asserted: one per turn a
    person had to play, on that person's device, and never one while they were there."""
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, bot_delay_ms=700, push_allowed_hosts=f"127.0.0.1:{service.port}"
    )
    clock = ManualClock()

    def process() -> tuple[RoomManager, Pusher]:
        manager = RoomManager(store=store, settings=settings, clock=clock)
        # As the app makes it: the budget per device (30 an hour) counts the process's clock, where days pass.
        pusher = Pusher(store, settings, clock=clock.monotonic)
        pusher.start()
        manager.nudger = pusher
        return manager, pusher

    manager, pusher = process()
    room, host_token = await manager.create(name="Sara", seat_count=3, bots=[], options={"pace": 24})
    tokens = [host_token]
    for name in ("Omid", "Nima"):
        _, token = await room.join(name)
        assert token is not None
        tokens.append(token)
    for seat, token in enumerate(tokens):
        await subscribe(store, service, room.code, token, f"seat-{seat}")
    host = FakeSocket(room)
    await host.say({"type": "hello", "token": tokens[0]})
    await host.say({"type": "start"})
    await room.detach(host.conn)
    code = room.code

    expected = [0, 0, 0]  # "your turn" notifications each seat should have had
    turns, restarted = 0, False
    while True:
        room = await manager.require(code)
        game = room.table.game
        assert game is not None
        if game.is_over:
            break
        seat = game.turn
        await clock.advance(paced.TURN_SETTLES.total_seconds())
        await look(manager, pusher)
        expected[seat] += 1
        got = [n for n in service.at(f"seat-{seat}") if n.payload["title"].startswith("Your turn")]
        assert len(got) == expected[seat], (turns, seat, expected)
        turns += 1
        if turns % 5 == 0:  # this one runs out: the server plays it
            await clock.advance(24 * HOUR + 1)
            await settle()
        else:
            await clock.advance(3 * HOUR)  # they come back some hours later and play
            back = FakeSocket(room)
            await back.say({"type": "hello", "token": tokens[seat]})
            await look(manager, pusher)  # while they are here: nothing
            await play_turn(room, back)
            await room.detach(back.conn)
        if turns == 60 and not restarted:  # the process is replaced
            await manager.close()
            await pusher.close()
            manager, pusher = process()
            restarted = True
        assert turns < 2000
    assert restarted and turns > 60
    finished = (await manager.require(code)).table
    assert finished.game is not None and finished.game.is_over
    for seat in range(3):
        arrived = [n for n in service.at(f"seat-{seat}") if n.payload["title"].startswith("Your turn")]
        assert len(arrived) == expected[seat], (seat, len(arrived), expected)
    await manager.close()
    await pusher.close()
