"""Seat avatars: a person shows a face at their own seat, everyone sees it, a bot's seat shows the robot, the
face goes with its person when a seat changes hands, and it is stored with the seat."""

from __future__ import annotations

import json

import pytest

from app.protocol import MessageRefused, parse_client_message
from app.rooms import RoomManager
from app.table import AVATARS, BOT_AVATAR, RoomStatus
from app.table.pause import ready_seats

from .fakes import FakeSocket


def avatars(message: dict) -> list[object]:  # type: ignore[type-arg]
    return [s["avatar"] for s in message["room"]["seats"]]


async def table_of_two(manager: RoomManager):  # type: ignore[no-untyped-def]
    room, host_token = await manager.create(name="Host", seat_count=3, bots=["easy"], options={})
    host = FakeSocket(room)
    await host.say({"type": "hello", "token": host_token})
    _, guest_token = await room.join("Guest")
    guest = FakeSocket(room)
    await guest.say({"type": "hello", "token": guest_token})
    host.drain()
    return room, host, guest, guest_token


async def test_a_person_picks_a_face_for_their_own_seat_and_everyone_sees_it(manager: RoomManager) -> None:
    room, host, guest, _ = await table_of_two(manager)
    watcher = FakeSocket(room)
    first = (await watcher.say({"type": "hello"}))[-1]
    assert avatars(first) == [None, BOT_AVATAR, None]  # nobody picked yet; the bot shows the robot
    version = room.table.version

    await guest.say({"type": "avatar", "avatar": "fox"})
    assert room.table.seats[2].avatar == "fox" and room.table.version == version + 1
    for socket in (host, watcher):
        assert avatars(socket.drain()[-1]) == [None, BOT_AVATAR, "fox"]

    await guest.say({"type": "avatar", "avatar": "fox"})  # shown already: nothing to write
    assert room.table.version == version + 1

    # Faces never touch the lobby's ready check.
    await host.say({"type": "ready"})
    assert ready_seats(room.table) == [0]
    await host.say({"type": "avatar", "avatar": "owl"})
    assert room.table.seats[0].avatar == "owl" and ready_seats(room.table) == [0]

    # Allowed during a game too: it changes nothing of the game.
    await host.say({"type": "start"})
    assert room.table.status is RoomStatus.PLAYING
    game = room.table.game
    await host.say({"type": "avatar", "avatar": "penguin"})
    assert room.table.seats[0].avatar == "penguin" and room.table.game == game


@pytest.mark.parametrize("value", ["dragon", "robot", "", "🦊", 5, None])
def test_anything_but_the_fixed_few_is_refused_before_it_reaches_a_room(value: object) -> None:
    with pytest.raises(MessageRefused) as refused:
        parse_client_message(json.dumps({"type": "avatar", "avatar": value}))
    assert refused.value.code == "bad_message" and "fox" in refused.value.message


async def test_spectators_and_bots_have_no_say_and_a_refusal_changes_nothing(manager: RoomManager) -> None:
    room, host, _guest, _ = await table_of_two(manager)
    version = room.table.version
    watcher = FakeSocket(room)
    await watcher.say({"type": "hello"})
    out = await watcher.say({"type": "avatar", "avatar": "cat"})
    assert out[-1]["type"] == "error" and out[-1]["code"] == "not_seated"
    assert room.table.version == version and [s.avatar for s in room.table.seats] == [None, None, None]


async def test_a_socket_sets_only_its_own_seat_even_after_it_changed_hands(manager: RoomManager) -> None:
    room, host, guest, guest_token = await table_of_two(manager)
    await guest.say({"type": "avatar", "avatar": "frog"})
    # The host hands the guest's seat to a bot: it shows the robot; the guest now watches.
    out = await host.say({"type": "bot_seat", "seat": 2, "level": "easy"})
    assert room.table.seats[2].is_bot
    assert avatars(next(m for m in reversed(out) if m["type"] == "state"))[2] == BOT_AVATAR
    version = room.table.version
    out = await guest.say({"type": "avatar", "avatar": "bee"})
    assert out[-1]["type"] == "error" and out[-1]["code"] == "not_seated"
    assert room.table.version == version
    # They take it back: the seat is theirs again, without a face until they pick one (their client sends it).
    await guest.say({"type": "request_seat", "seat": 2})
    assert not room.table.seats[2].is_bot and room.table.seats[2].avatar is None
    await guest.say({"type": "avatar", "avatar": "bee"})
    assert [s.avatar for s in room.table.seats] == [None, None, "bee"]


async def test_the_face_is_stored_with_the_seat_and_read_back_after_a_restart(manager: RoomManager) -> None:
    room, host, guest, guest_token = await table_of_two(manager)
    await guest.say({"type": "avatar", "avatar": AVATARS[-1]})
    loaded = await manager.store.load_table(room.code)
    assert loaded is not None and loaded.table.seats[2].avatar == AVATARS[-1]
    manager.rooms.clear()  # as after a restart: the room is read back from the store
    again = await manager.get(room.code)
    assert again is not None and again is not room
    back = FakeSocket(again)
    assert avatars((await back.say({"type": "hello", "token": guest_token}))[-1]) == [None, BOT_AVATAR, "bee"]
    await again.close()
