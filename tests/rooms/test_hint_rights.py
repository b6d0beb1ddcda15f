"""Who may ask for a hint: every player where the table has hints on; a seat played for practice (left out of
the standings) at any table, so a newcomer's coach works wherever they practise; nobody else. Asking changes
nothing in the game."""

from __future__ import annotations

from typing import Any

from app.engine.hints import hint as engine_hint
from app.rooms import Room, RoomManager

from .fakes import FakeSocket


async def started(
    manager: RoomManager, *, hints: bool, practice: bool
) -> tuple[Room, FakeSocket, FakeSocket]:
    """A table of two people (hints as given); the guest plays for practice when ``practice``. Sockets of
    the seat whose turn it is and of the other seat."""
    room, host = await manager.create(name="Host", seat_count=2, bots=[], options={"hints": hints})
    _, guest = await room.join("Guest")
    assert guest is not None
    socks = {}
    for seat, token in ((0, host), (1, guest)):
        socks[seat] = FakeSocket(room)
        await socks[seat].say({"type": "hello", "token": token})
    if practice:
        await socks[1].say({"type": "practice", "on": True})
        assert room.table.seats[1].practice
    await socks[0].say({"type": "start"})
    assert room.table.game is not None
    turn = room.table.game.turn
    return room, socks[turn], socks[1 - turn]


def answer(messages: list[dict[str, Any]]) -> dict[str, Any]:
    (found,) = [m for m in messages if m["type"] in ("hint", "error")]
    return found


async def play_until_guests_turn(
    room: Room, me: FakeSocket, other: FakeSocket
) -> tuple[FakeSocket, FakeSocket]:
    """The sockets (guest, host) once it is the guest's (seat 1) turn, the host having drawn and thrown once
    if it was theirs."""
    game = room.table.game
    assert game is not None
    if game.turn == 1:
        return me, other
    await me.say({"type": "action", "id": "d", "action": {"type": "draw", "source": "stock"}})
    game = room.table.game
    assert game is not None
    card = str(game.hands[0][0])
    await me.say({"type": "action", "id": "t", "action": {"type": "discard", "card": card}})
    assert room.table.game is not None and room.table.game.turn == 1
    return other, me


async def test_a_practice_seat_may_ask_where_hints_are_off(manager: RoomManager) -> None:
    room, me, other = await started(manager, hints=False, practice=True)
    guest, host = await play_until_guests_turn(room, me, other)
    game, version = room.table.game, room.table.version
    assert game is not None and not game.options.hints
    found = answer(await guest.say({"type": "hint"}))
    expected = engine_hint(game, 1, allowed=True)
    assert found["type"] == "hint" and found["draw"] == expected.source  # type: ignore[union-attr]
    assert (room.table.version, room.table.game) == (version, game)  # asking changed nothing
    await guest.say({"type": "action", "id": "g", "action": {"type": "draw", "source": "stock"}})
    after = answer(await guest.say({"type": "hint"}))
    assert after["type"] == "hint" and set(after) == {"type", "card", "go_out", "penalty"}  # as before


async def test_a_seat_not_in_practice_is_refused_where_hints_are_off(manager: RoomManager) -> None:
    room, me, other = await started(manager, hints=False, practice=True)
    guest, host = await play_until_guests_turn(room, me, other)
    await guest.say({"type": "action", "id": "g", "action": {"type": "draw", "source": "stock"}})
    game = room.table.game
    assert game is not None
    card = str(game.hands[1][0])
    await guest.say({"type": "action", "id": "h", "action": {"type": "discard", "card": card}})
    assert room.table.game is not None and room.table.game.turn == 0
    refused = answer(await host.say({"type": "hint"}))  # the host counts in the standings: no hints here
    assert refused["type"] == "error" and refused["code"] == "illegal_action"
    assert "hints are off" in refused["message"]


async def test_with_hints_on_every_player_may_ask_before_and_after_the_draw(manager: RoomManager) -> None:
    room, me, _ = await started(manager, hints=True, practice=False)
    version = room.table.version
    before = answer(await me.say({"type": "hint"}))
    assert before["type"] == "hint" and before["draw"] in ("stock", "discard")
    assert room.table.version == version
