"""Turn timers, absent players, seats handed to bots and taken over: all on a manual clock (no sleeping)."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

from app.config import Settings
from app.engine import action_to_dict
from app.engine.bots import choose_action
from app.rooms import Room, RoomManager
from app.store import Store

from .fakes import FakeSocket, ManualClock, wait_until


def codes(messages: list[dict[str, Any]]) -> list[str]:
    return [m["code"] for m in messages if m["type"] == "error"]


def iso(clock: ManualClock, seconds: float) -> str:
    when = clock.now() + timedelta(seconds=seconds)
    return when.isoformat(timespec="milliseconds").replace("+00:00", "Z")


async def two_people(
    manager: RoomManager, *, timer: int = 0, seats: int = 2
) -> tuple[Room, list[FakeSocket], list[str]]:
    """Host and Guest, both connected, game started."""
    room, host_token = await manager.create(
        name="Host", seat_count=seats, bots=[], options={"turn_timer": timer}
    )
    seat, guest_token = await room.join("Guest")
    assert seat == 1 and guest_token is not None
    sockets = [FakeSocket(room), FakeSocket(room)]
    for sock, token in zip(sockets, [host_token, guest_token], strict=True):
        await sock.say({"type": "hello", "token": token})
    await sockets[0].say({"type": "start"})
    return room, sockets, [host_token, guest_token]


async def play_turn(room: Room, sock: FakeSocket) -> None:
    """The person at ``sock`` plays a whole turn (draw, discard) as a normal bot would."""
    seat = sock.conn.seat
    assert seat is not None and room.game is not None
    while room.game is not None and room.game.turn == seat and not room.game.is_over:
        move = action_to_dict(choose_action(room.game, seat, "normal", room.game.moves))
        sock.drain()
        out = await sock.say({"type": "action", "id": f"{seat}-{room.game.moves}", "action": move})
        assert out[0]["type"] == "ack", out
        if move["type"] != "draw":
            break


async def settle() -> None:
    """Let tasks that could run do so (real time, briefly): nothing should happen on a still clock."""
    for _ in range(20):
        await asyncio.sleep(0.002)


async def test_timer_expiry_plays_exactly_one_turn_for_the_right_seat(
    manager: RoomManager, clock: ManualClock
) -> None:
    room, sockets, _ = await two_people(manager, timer=30)
    assert room.game is not None and room.game_id is not None
    seat = room.game.turn
    start = sockets[0].seen[-1]
    assert start["room"]["turn_deadline"] == iso(clock, 30)
    assert start["room"]["server_time"] == iso(clock, 0)
    assert "turn_deadline" not in start["game"]  # never inside the engine's view
    version = room.version

    await clock.advance(29.9)
    await settle()
    assert room.version == version  # no auto-play before the deadline

    await clock.advance(0.2)
    await wait_until(lambda: room.version == version + 2)
    await settle()
    assert room.version == version + 2  # one turn: a draw and a discard, nothing more
    assert room.game.turn == 1 - seat and room.game.phase == "draw"
    actions = await manager.store.list_actions(room.game_id)
    assert [(a.seat, a.client_id) for a in actions] == [(seat, None), (seat, None)]
    assert actions[0].action["type"] == "draw" and actions[1].action["type"] in ("discard", "go_out")
    last = sockets[seat].drain()[-1]
    assert last["version"] == room.version and last["game"]["turn"] == 1 - seat
    assert last["room"]["turn_deadline"] == iso(clock, 30)  # the next seat's own 30 seconds
    assert [s["auto"] for s in last["room"]["seats"]] == [False, False]  # connected: not "auto"
    record = await manager.store.load_room(room.code)
    assert record is not None and record.version == room.version

    # The next person plays in time: the timer restarts for the first seat again.
    await clock.advance(10)
    await play_turn(room, sockets[1 - seat])
    version = room.version
    await clock.advance(29)
    await settle()
    assert room.version == version


async def test_an_absent_seat_is_played_after_the_grace_period_and_taken_back(
    manager: RoomManager, clock: ManualClock
) -> None:
    room, sockets, tokens = await two_people(manager)
    assert room.game is not None
    away = room.game.turn
    here = 1 - away
    await room.detach(sockets[away].conn)
    seen = sockets[here].drain()[-1]["room"]["seats"][away]
    assert seen["connected"] is False and seen["auto"] is False
    version = room.version

    await clock.advance(59)
    await settle()
    assert room.version == version  # still within the grace period
    await clock.advance(1)
    await wait_until(lambda: room.version == version + 2)
    states = [m for m in sockets[here].drain() if m["type"] == "state"]
    assert states[-1]["room"]["seats"][away]["auto"] is True
    assert states[-1]["room"]["turn_deadline"] is None  # no turn timer at this table
    assert room.game.turn == here

    # Its next turns come at a bot's pace once the person present has played.
    while room.game.turn != away:
        await play_turn(room, sockets[here])
    version = room.version
    await clock.advance(0.6)
    await settle()
    assert room.version == version
    await clock.advance(0.2)
    await wait_until(lambda: room.version == version + 2)

    # Back: a socket of that seat says hello, and the server stops playing for it.
    back = FakeSocket(room)
    await back.say({"type": "hello", "token": tokens[away]})
    assert back.seen[-1]["room"]["seats"][away] == {
        "seat": away,
        "name": ["Host", "Guest"][away],
        "bot": False,
        "bot_level": None,
        "connected": True,
        "auto": False,
    }
    while room.game.turn != away:
        await play_turn(room, sockets[here])
    version = room.version
    await clock.advance(600)
    await settle()
    assert room.version == version and room.game.turn == away


async def test_the_host_hands_a_seat_to_a_bot(manager: RoomManager, clock: ManualClock) -> None:
    room, sockets, tokens = await two_people(manager, seats=3)
    host, guest = sockets
    assert codes(await guest.say({"type": "bot_seat", "seat": 0})) == ["not_host"]
    assert codes(await host.say({"type": "bot_seat", "seat": 0})) == ["not_allowed"]
    assert codes(await host.say({"type": "bot_seat", "seat": 5})) == ["bad_message"]
    version = room.version
    guest.drain()
    out = await host.say({"type": "bot_seat", "seat": 1, "level": "easy"})
    assert room.version == version + 1
    seat = out[-1]["room"]["seats"][1]
    assert (seat["name"], seat["bot"], seat["bot_level"], seat["connected"]) == ("Guest", True, "easy", True)
    # The person's tabs now watch; the token no longer opens the seat.
    assert {"type": "welcome", "room": room.code, "seat": None, "you_are_host": False} in guest.drain()
    move = {"type": "action", "id": "g1", "action": {"type": "draw", "source": "stock"}}
    assert codes(await guest.say(move)) == ["not_seated"]
    assert codes(await FakeSocket(room).say({"type": "hello", "token": tokens[1]})) == ["bad_token"]
    record = await manager.store.load_room(room.code)
    assert record is not None
    stored = record.seats[1]
    assert (stored.is_bot, stored.bot_level, stored.token_hash) == (True, "easy", None)

    # Whenever it is the bot's turn, it plays at its own pace.
    assert room.game is not None
    while room.game.turn != 1:
        await play_turn(room, host)
    version = room.version
    await wait_until(lambda: clock.sleeping > 0)
    await clock.advance(0.7)
    await wait_until(lambda: room.version > version)


async def test_a_bot_seat_in_the_lobby_and_a_newcomer_taking_it(manager: RoomManager) -> None:
    room, token = await manager.create(name="Host", seat_count=3, bots=[], options={})
    host = FakeSocket(room)
    await host.say({"type": "hello", "token": token})
    seat, guest_token = await room.join("Guest")
    await host.say({"type": "bot_seat", "seat": 1, "level": "hard"})
    assert (room.seats[1].is_bot, room.seats[1].bot_level) == (True, "hard")
    taken, new_token = await room.join("Nima", 1)
    assert taken == 1 and new_token and new_token != guest_token
    assert (room.seats[1].name, room.seats[1].is_bot) == ("Nima", False)
    out = await FakeSocket(room).say({"type": "hello", "token": new_token})
    assert out[0]["seat"] == 1


async def test_a_newcomer_takes_over_a_bot_seat_between_rounds(
    manager: RoomManager, clock: ManualClock
) -> None:
    room, token = await manager.create(name="Host", seat_count=2, bots=["normal"], options={})
    host = FakeSocket(room)
    await host.say({"type": "hello", "token": token})
    assert codes(await host.say({"type": "start"})) == []
    assert room.game is not None
    with_error = None
    # Round 1: the host plays; the bot plays when the clock says so.
    while room.game.round == 1:
        if room.game.turn == 0:
            await play_turn(room, host)
        else:
            version = room.version
            await wait_until(lambda: clock.sleeping > 0)
            await clock.advance(0.7)
            await wait_until(lambda v=version: room.version > v)  # type: ignore[misc]
        if room.game.round == 1 and room.game.moves > 0 and with_error is None:
            try:
                await room.join("Too early", 1)
            except Exception as exc:  # mid-round: refused
                with_error = exc
    assert getattr(with_error, "code", None) == "wrong_status"
    assert room.between_rounds() and room.game.round == 2
    version = room.version
    seat, new_token = await room.join("Nima", 1)
    assert seat == 1 and new_token and room.version == version + 1
    newcomer = FakeSocket(room)
    out = await newcomer.say({"type": "hello", "token": new_token})
    assert out[0]["seat"] == 1 and out[-1]["game"]["seat"] == 1 and len(out[-1]["game"]["hand"]) == 4
    record = await manager.store.load_room(room.code)
    assert record is not None and (record.seats[1].name, record.seats[1].is_bot) == ("Nima", False)
    # The bot no longer plays seat 1: its turns wait for Nima.
    while room.game.turn != 1:
        await play_turn(room, host)
    version = room.version
    await clock.advance(5)
    await settle()
    assert room.version == version
    await play_turn(room, newcomer)
    assert room.game.turn == 0
    # A person's seat cannot be taken.
    try:
        await room.join("Thief", 0)
    except Exception as exc:
        assert getattr(exc, "code", None) == "not_allowed"
    else:
        raise AssertionError("a person's seat was taken")


async def test_a_restart_keeps_the_turn_timer_and_the_bots_history(
    manager: RoomManager, clock: ManualClock, sqlite_url: str
) -> None:
    room, sockets, _ = await two_people(manager, timer=30)
    assert room.game is not None
    # A few turns, so the round has public history; then the turn timer has run 10 of its 30 seconds.
    for _ in range(3):
        await play_turn(room, sockets[room.game.turn])
    while not room.game.round_log:  # a round may have just ended: play into the next one
        await play_turn(room, sockets[room.game.turn])
    history, started, version = room.game.round_log, room.turn_started, room.version
    seat = room.game.turn
    await clock.advance(10)
    await manager.close()

    store = Store(sqlite_url)
    settings = Settings(_env_file=None, database_url=sqlite_url, bot_delay_ms=700)  # type: ignore[call-arg]
    second = RoomManager(store=store, settings=settings, clock=clock)
    try:
        again = await second.get(room.code)
        assert again is not None and again.version == version
        assert again.turn_started == started
        assert again.game is not None and again.game.round_log == history, "the bots' public history survives"
        assert again.turn_deadline() == started + timedelta(seconds=30)
        watcher = FakeSocket(again)
        assert (await watcher.say({"type": "hello"}))[-1]["room"]["turn_deadline"] == iso(clock, 20)
        await clock.advance(19.9)
        await settle()
        assert again.version == version
        await clock.advance(0.2)  # 30 s after the turn began, though the server restarted meanwhile
        await wait_until(lambda: again.version == version + 2)
        assert again.game_id is not None
        assert [a.seat for a in (await store.list_actions(again.game_id))[-2:]] == [seat, seat]
        # Nobody reconnected: the other seat's turn is played when its own timer runs out (before the
        # grace period, which restarted with the process, ends).
        await clock.advance(29.8)
        await settle()
        assert again.version == version + 2
        await clock.advance(0.3)
        await wait_until(lambda: again.version == version + 4)
        shown = watcher.drain()[-1]["room"]["seats"]
        assert [s["auto"] for s in shown] == [False, False]
        await clock.advance(19.9)  # 60 s after the restart: both seats are played as absent, at a bot's pace
        await wait_until(lambda: again.version == version + 6)
        assert [s["auto"] for s in watcher.drain()[-1]["room"]["seats"]] == [True, True]
    finally:
        await second.close()
        await store.close()
