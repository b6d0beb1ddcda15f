"""The host role at a live table: handed over by choice (``make_host``), passed on by the room's driver when
the host is gone (HOST_AWAY_SECONDS with another person here), kept in the store, and judged on the table
as it is in the store when another process moved it."""

from __future__ import annotations

from typing import Any

from app.rooms import Room, RoomManager
from app.rooms.room import PRESENCE_SECONDS

from .fakes import FakeSocket, ManualClock, wait_until
from .test_timers import codes, settle


async def host_and_guest(manager: RoomManager, seats: int = 3) -> tuple[Room, FakeSocket, FakeSocket]:
    """A lobby: Host (seat 0) and Guest (seat 1), both connected."""
    room, host_token = await manager.create(name="Host", seat_count=seats, bots=[], options={})
    _, guest_token = await room.join("Guest")
    host, guest = FakeSocket(room), FakeSocket(room)
    await host.say({"type": "hello", "token": host_token})
    await guest.say({"type": "hello", "token": guest_token})
    return room, host, guest


def last_room(sock: FakeSocket) -> dict[str, Any]:
    return next(m for m in reversed(sock.drain() or sock.seen) if m["type"] in ("state", "presence"))["room"]


async def stored_host(manager: RoomManager, code: str) -> int:
    loaded = await manager.store.load_table(code)
    assert loaded is not None
    return loaded.table.host_seat


async def test_the_host_hands_the_role_over_and_the_new_host_starts(manager: RoomManager) -> None:
    room, host, guest = await host_and_guest(manager, seats=4)
    assert codes(await guest.say({"type": "make_host", "seat": 1})) == ["not_host"]
    assert codes(await host.say({"type": "make_host", "seat": 0})) == ["not_allowed"]  # the host already
    await room.join("Nima")
    await host.say({"type": "add_bot"})
    assert codes(await host.say({"type": "make_host", "seat": 3})) == ["not_allowed"]  # a bot
    version = room.table.version
    assert codes(await host.say({"type": "make_host", "seat": 1})) == []
    assert room.table.host_seat == 1 and room.table.version == version + 1
    assert last_room(guest)["host_seat"] == 1 and last_room(host)["host_seat"] == 1
    assert await stored_host(manager, room.code) == 1
    assert codes(await host.say({"type": "start"})) == ["not_host"]
    assert codes(await guest.say({"type": "start"})) == []
    assert room.table.status.value == "playing"
    # In a game too, and back.
    assert codes(await guest.say({"type": "make_host", "seat": 0})) == []
    assert room.table.host_seat == 0 and await stored_host(manager, room.code) == 0


async def test_removing_a_seat_below_the_host_keeps_the_host(manager: RoomManager) -> None:
    room, host, _guest = await host_and_guest(manager)
    _, nima_token = await room.join("Nima")
    nima = FakeSocket(room)
    await nima.say({"type": "hello", "token": nima_token})
    await host.say({"type": "make_host", "seat": 2})
    out = await nima.say({"type": "remove_seat", "seat": 1})
    assert codes(out) == []
    assert room.table.host_seat == 1 and room.table.seats[1].name == "Nima"
    assert nima.conn.seat == 1 and await stored_host(manager, room.code) == 1
    assert codes(await nima.say({"type": "set_options", "seats": 4})) == []  # still the host


async def test_a_host_gone_past_the_setting_hands_the_role_to_the_person_here(
    manager: RoomManager, clock: ManualClock
) -> None:
    room, host, guest = await host_and_guest(manager)
    await room.detach(host.conn)
    await clock.advance(PRESENCE_SECONDS)
    version = room.table.version
    await clock.advance(59)
    await settle()
    assert room.table.host_seat == 0 and room.table.version == version  # not gone yet
    await clock.advance(1)
    await wait_until(lambda: room.table.host_seat == 1)
    assert room.table.version == version + 1
    assert last_room(guest)["host_seat"] == 1
    assert await stored_host(manager, room.code) == 1
    assert codes(await guest.say({"type": "start"})) == []


async def test_a_host_who_comes_back_in_time_or_is_alone_keeps_the_role(
    manager: RoomManager, clock: ManualClock
) -> None:
    room, host_token = await manager.create(name="Host", seat_count=3, bots=["easy"], options={})
    _, guest_token = await room.join("Guest")
    host = FakeSocket(room)
    await host.say({"type": "hello", "token": host_token})
    await clock.advance(600)  # the guest never came: nobody to hand the role to
    await settle()
    assert room.table.host_seat == 0
    guest = FakeSocket(room)
    await guest.say({"type": "hello", "token": guest_token})
    await room.detach(host.conn)
    await clock.advance(30)
    back = FakeSocket(room)
    await back.say({"type": "hello", "token": host_token})  # back within the minute
    await clock.advance(120)
    await settle()
    assert room.table.host_seat == 0
    await room.detach(back.conn)
    await room.detach(guest.conn)
    await clock.advance(600)  # everyone gone: nothing to do
    await settle()
    assert room.table.host_seat == 0


async def test_the_host_is_judged_on_the_table_another_process_moved(
    manager: RoomManager, elsewhere: RoomManager
) -> None:
    room, host_token = await manager.create(name="Host", seat_count=3, bots=[], options={})
    _, guest_token = await room.join("Guest")
    there = await elsewhere.get(room.code)
    assert there is not None
    old_host, guest = FakeSocket(there), FakeSocket(there)
    await old_host.say({"type": "hello", "token": host_token})
    await guest.say({"type": "hello", "token": guest_token})
    here = FakeSocket(room)
    await here.say({"type": "hello", "token": host_token})
    assert codes(await here.say({"type": "make_host", "seat": 1})) == []
    assert there.table.host_seat == 0  # its cache has not heard
    assert codes(await old_host.say({"type": "start"})) == ["not_host"]
    assert there.table.host_seat == 1
    assert codes(await guest.say({"type": "set_options", "seats": 2})) == []
    assert (await stored_host(manager, room.code)) == 1


async def test_a_host_who_was_gone_gets_the_role_back_on_another_process(
    manager: RoomManager, clock: ManualClock, elsewhere: RoomManager
) -> None:
    """Whose the role becomes again is kept in the store (it was one process's memory): the host who was
    gone comes back through another process, which reads the room from the store, and is the host again."""
    room, host_token = await manager.create(name="Host", seat_count=3, bots=[], options={})
    _, guest_token = await room.join("Guest")
    host, guest = FakeSocket(room), FakeSocket(room)
    await host.say({"type": "hello", "token": host_token})
    await guest.say({"type": "hello", "token": guest_token})
    await room.detach(host.conn)
    await clock.advance(PRESENCE_SECONDS + 60)
    await wait_until(lambda: room.table.host_seat == 1)
    loaded = await manager.store.load_table(room.code)
    assert loaded is not None and loaded.table.host_seat == 1
    assert loaded.table.host_returns_to == room.table.seats[0].token_hash is not None
    there = await elsewhere.get(room.code)
    assert there is not None and there.table.host_seat == 1
    back = FakeSocket(there)
    await back.say({"type": "hello", "token": host_token})
    await wait_until(lambda: there.table.host_seat == 0)
    assert codes(await back.say({"type": "set_options", "seats": 4})) == []  # the host again
    assert await stored_host(manager, room.code) == 0
    loaded = await manager.store.load_table(room.code)
    assert loaded is not None and loaded.table.host_returns_to is None
