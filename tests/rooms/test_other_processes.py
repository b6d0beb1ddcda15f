"""A room whose cache is behind the store because another process changed the table and its notice has not
arrived (or was lost): commands without a version apply to the table as it now is, sockets that know a
newer version make the room catch up, and a token of a seat taken elsewhere is recognised."""

from __future__ import annotations

from app.rooms import Room, RoomManager

from .fakes import FakeSocket


async def _both(manager: RoomManager, elsewhere: RoomManager) -> tuple[Room, Room, str]:
    room, token = await manager.create(name="Host", seat_count=4, bots=[], options={})
    other = await elsewhere.get(room.code)
    assert other is not None
    return room, other, token


async def test_a_join_on_a_stale_cache_takes_the_next_seat_of_the_table_as_it_is(
    manager: RoomManager, elsewhere: RoomManager
) -> None:
    here, there, _ = await _both(manager, elsewhere)
    assert (await here.join("Bob"))[0] == 1
    seat, token = await there.join("Cyd")  # `there` still believes seat 1 is free
    assert seat == 2 and token
    assert [s.name for s in there.table.seats] == ["Host", "Bob", "Cyd"]


async def test_a_token_of_a_seat_taken_through_another_process_is_recognised(
    manager: RoomManager, elsewhere: RoomManager
) -> None:
    here, there, _ = await _both(manager, elsewhere)
    _, token = await here.join("Bob")
    socket = FakeSocket(there)
    out = await socket.say({"type": "hello", "token": token})
    assert out[0] == {"type": "welcome", "room": here.code, "seat": 1, "you_are_host": False}
