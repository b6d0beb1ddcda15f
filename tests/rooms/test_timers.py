"""Turn timers, absent players, seats handed to bots and taken over: all on a manual clock (no sleeping)."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from typing import Any

from app.config import Settings
from app.engine import action_to_dict
from app.engine.bots import choose_action
from app.rooms import Room, RoomManager
from app.rooms.room import PRESENCE_SECONDS
from app.rooms.tokens import hash_token
from app.store import Store
from app.table.schedule import turn_deadline
from tests.reads import list_actions

from .fakes import FakeSocket, ManualClock, wait_until


def codes(messages: list[dict[str, Any]]) -> list[str]:
    return [m["code"] for m in messages if m["type"] == "error"]


def iso(clock: ManualClock, seconds: float) -> str:
    when = clock.now() + timedelta(seconds=seconds)
    return when.isoformat(timespec="milliseconds").replace("+00:00", "Z")


async def two_people(
    manager: RoomManager, *, timer: int = 0, seats: int = 2, pace: str | int = "live"
) -> tuple[Room, list[FakeSocket], list[str]]:
    """Host and Guest, both connected, game started (``pace``: the table's, live by default)."""
    room, host_token = await manager.create(
        name="Host", seat_count=seats, bots=[], options={"turn_timer": timer, "pace": pace}
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
    assert seat is not None and room.table.game is not None
    while room.table.game is not None and room.table.game.turn == seat and not room.table.game.is_over:
        move = action_to_dict(choose_action(room.table.game, seat, "normal", room.table.game.moves))
        sock.drain()
        out = await sock.say({"type": "action", "id": f"{seat}-{room.table.game.moves}", "action": move})
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
    assert room.table.game is not None and room.table.game_id is not None
    seat = room.table.game.turn
    start = sockets[0].seen[-1]
    assert start["room"]["turn_deadline"] == iso(clock, 30)
    assert start["room"]["server_time"] == iso(clock, 0)
    assert "turn_deadline" not in start["game"]  # never inside the engine's view
    version = room.table.version

    await clock.advance(29.9)
    await settle()
    assert room.table.version == version  # no auto-play before the deadline

    await clock.advance(0.2)
    await wait_until(lambda: room.table.version == version + 2)
    await settle()
    assert room.table.version == version + 2  # one turn: a draw and a discard, nothing more
    assert room.table.game.turn == 1 - seat and room.table.game.phase == "draw"
    actions = await list_actions(manager.store, room.table.game_id)
    assert [(a.seat, a.client_id) for a in actions] == [(seat, None), (seat, None)]
    assert actions[0].action["type"] == "draw" and actions[1].action["type"] in ("discard", "go_out")
    last = sockets[seat].drain()[-1]
    assert last["version"] == room.table.version and last["game"]["turn"] == 1 - seat
    assert last["room"]["turn_deadline"] == iso(clock, 30)  # the next seat's own 30 seconds
    assert [s["auto"] for s in last["room"]["seats"]] == [False, False]  # connected: not "auto"
    loaded = await manager.store.load_table(room.code)
    assert loaded is not None and loaded.table.version == room.table.version

    # The next person plays in time: the timer restarts for the first seat again.
    await clock.advance(10)
    await play_turn(room, sockets[1 - seat])
    version = room.table.version
    await clock.advance(29)
    await settle()
    assert room.table.version == version


async def test_an_absent_seat_is_played_after_the_grace_period_and_taken_back(
    manager: RoomManager, clock: ManualClock
) -> None:
    room, sockets, tokens = await two_people(manager)
    assert room.table.game is not None
    away = room.table.game.turn
    here = 1 - away
    left = clock.now()
    await room.detach(sockets[away].conn)
    await clock.advance(PRESENCE_SECONDS)  # presence is told at most once per PRESENCE_SECONDS
    seen = sockets[here].drain()[-1]["room"]["seats"][away]
    assert seen["connected"] is False and seen["auto"] is False
    # Everyone is told when the server will play for it: the end of its grace period (60 s).
    assert datetime.fromisoformat(seen["auto_at"]) == left + timedelta(seconds=60)
    assert "auto_at" not in sockets[here].seen[-1]["room"]["seats"][here]
    version = room.table.version

    await clock.advance(59)
    await settle()
    assert room.table.version == version  # still within the grace period
    await clock.advance(1)
    # A whole turn played for it (and, if it is the host's seat, the host role passed on: HOST_AWAY_SECONDS).
    handover = 1 if away == 0 else 0
    await wait_until(lambda: room.table.version == version + 2 + handover)
    assert room.table.host_seat == (here if handover else 0)
    states = [m for m in sockets[here].drain() if m["type"] == "state"]
    assert states[-1]["room"]["seats"][away]["auto"] is True
    assert "auto_at" not in states[-1]["room"]["seats"][away]  # it has come
    assert states[-1]["room"]["turn_deadline"] is None  # no turn timer at this table
    assert room.table.game.turn == here

    # Its next turns come at a bot's pace once the person present has played.
    while room.table.game.turn != away:
        await play_turn(room, sockets[here])
    version = room.table.version
    await clock.advance(0.6)
    await settle()
    assert room.table.version == version
    await clock.advance(0.2)
    await wait_until(lambda: room.table.version == version + 2)

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
        "program": False,
        "practice": False,
        "avatar": None,
    }
    if handover:  # the host who was gone is back: the role returns to them
        await wait_until(lambda: room.table.host_seat == 0)
    while room.table.game.turn != away:
        await play_turn(room, sockets[here])
    version = room.table.version
    await clock.advance(600)
    await settle()
    assert room.table.version == version and room.table.game.turn == away


async def test_the_host_hands_a_seat_to_a_bot(manager: RoomManager, clock: ManualClock) -> None:
    room, sockets, tokens = await two_people(manager, seats=3)
    host, guest = sockets
    assert codes(await guest.say({"type": "bot_seat", "seat": 0})) == ["not_host"]
    assert codes(await host.say({"type": "bot_seat", "seat": 0})) == ["not_allowed"]
    assert codes(await host.say({"type": "bot_seat", "seat": 5})) == ["bad_message"]
    version = room.table.version
    guest.drain()
    out = await host.say({"type": "bot_seat", "seat": 1, "level": "easy"})
    assert room.table.version == version + 1
    seat = out[-1]["room"]["seats"][1]
    assert (seat["name"], seat["bot"], seat["bot_level"], seat["connected"]) == ("Guest", True, "easy", True)
    # The person's tabs now watch; the token no longer opens the seat (it may ask for it back).
    assert {
        "type": "welcome",
        "room": room.code,
        "seat": None,
        "you_are_host": False,
        "former_seat": 1,
    } in guest.drain()
    move = {"type": "action", "id": "g1", "action": {"type": "draw", "source": "stock"}}
    assert codes(await guest.say(move)) == ["not_seated"]
    again = await FakeSocket(room).say({"type": "hello", "token": tokens[1]})
    assert again[0] == {
        "type": "welcome",
        "room": room.code,
        "seat": None,
        "you_are_host": False,
        "former_seat": 1,
    }
    loaded = await manager.store.load_table(room.code)
    assert loaded is not None
    stored = loaded.table.seats[1]
    assert (stored.is_bot, stored.bot_level, stored.token_hash) == (True, "easy", None)
    assert stored.former_token_hash == hash_token(tokens[1])

    # Whenever it is the bot's turn, it plays at its own pace.
    assert room.table.game is not None
    while room.table.game.turn != 1:
        await play_turn(room, host)
    version = room.table.version
    await wait_until(lambda: clock.sleeping > 0)
    await clock.advance(0.7)
    await wait_until(lambda: room.table.version > version)


async def test_a_bot_seat_in_the_lobby_passes_once_the_host_approves(manager: RoomManager) -> None:
    room, token = await manager.create(name="Host", seat_count=3, bots=[], options={})
    host = FakeSocket(room)
    await host.say({"type": "hello", "token": token})
    seat, guest_token = await room.join("Guest")
    await host.say({"type": "bot_seat", "seat": 1, "level": "hard"})
    assert (room.table.seats[1].is_bot, room.table.seats[1].bot_level) == (True, "hard")
    # Over REST a bot's seat is asked for, never taken: a token and no seat until the host says yes.
    taken, new_token = await room.join("Nima", 1)
    assert taken is None and new_token and new_token != guest_token
    assert room.table.seats[1].is_bot and room.table.seats[1].claim is not None
    nima = FakeSocket(room)
    out = await nima.say({"type": "hello", "token": new_token})
    assert out[0] == {
        "type": "welcome",
        "room": room.code,
        "seat": None,
        "you_are_host": False,
        "requested_seat": 1,
    }
    assert out[-1]["room"]["seats"][1]["request"] == {"name": "Nima", "approved": False}
    assert codes(await nima.say({"type": "approve_seat", "seat": 1})) == ["not_seated"]
    await host.say({"type": "approve_seat", "seat": 1})  # the lobby: it passes at once
    assert (room.table.seats[1].name, room.table.seats[1].is_bot) == ("Nima", False)
    seen = nima.drain()
    assert seen[0] == {"type": "welcome", "room": room.code, "seat": 1, "you_are_host": False}
    assert "request" not in seen[-1]["room"]["seats"][1]


async def one_turn(room: Room, host: FakeSocket, clock: ManualClock) -> None:
    """The seat to act plays: the host's through its socket, a bot's when the clock lets it."""
    assert room.table.game is not None
    if not room.table.seats[room.table.game.turn].is_bot:
        await play_turn(room, host)
        return
    version = room.table.version
    await wait_until(lambda: clock.sleeping > 0)
    await clock.advance(0.7)
    await wait_until(lambda: room.table.version > version)


async def play_until_round(room: Room, host: FakeSocket, clock: ManualClock, rnd: int) -> None:
    assert room.table.game is not None
    while room.table.game.round < rnd:
        await one_turn(room, host, clock)


async def test_a_spectator_asks_mid_round_and_the_seat_passes_when_the_next_round_is_dealt(
    manager: RoomManager, clock: ManualClock
) -> None:
    room, token = await manager.create(name="Host", seat_count=3, bots=["normal", "normal"], options={})
    host = FakeSocket(room)
    await host.say({"type": "hello", "token": token})
    assert codes(await host.say({"type": "start"})) == []
    assert room.table.game is not None
    # The host holds a seat already: one token never holds two seats.
    assert codes(await host.say({"type": "request_seat", "seat": 1, "name": "Host"})) == ["already_seated"]
    nima = FakeSocket(room)
    await nima.say({"type": "hello"})
    while not room.table.game.round_log:  # a move into round 1
        await one_turn(room, host, clock)
    asked = await nima.say({"type": "request_seat", "seat": 1, "name": "Nima"})
    granted = [m for m in asked if m["type"] == "seat_requested"]
    assert len(granted) == 1 and granted[0]["seat"] == 1 and granted[0]["token"]
    assert room.table.seats[1].is_bot and room.table.seats[1].claim is not None
    # Mid-round nothing passes: not on asking, not on the host's approval.
    assert codes(await host.say({"type": "approve_seat", "seat": 2})) == ["no_request"]
    await host.say({"type": "approve_seat", "seat": 1})
    assert room.table.seats[1].is_bot and room.table.game.round == 1
    loaded = await manager.store.load_table(room.code)  # an approved hand-over is committed state
    assert (
        loaded is not None
        and loaded.table.seats[1].claim is not None
        and loaded.table.seats[1].claim.approved
    )
    nima.drain()
    await play_until_round(room, host, clock, 2)
    # The change that dealt round 2 gave seat 1 to Nima: no bot made its first move of the round.
    seat = room.table.seats[1]
    assert (seat.name, seat.is_bot, seat.claim) == ("Nima", False, None)
    assert room.table.game.round_log == () or all(s != 1 for s, _, _ in room.table.game.round_log)
    seen = nima.drain()
    welcome = [m for m in seen if m["type"] == "welcome"]
    assert welcome == [{"type": "welcome", "room": room.code, "seat": 1, "you_are_host": False}]
    after = seen[seen.index(welcome[0]) + 1 :]
    states = [m for m in after if m["type"] == "state"]
    assert states and states[-1]["game"]["seat"] == 1 and len(states[-1]["game"]["hand"]) == 4
    # Seat 1 is now a person's: its turn waits for Nima (no bot moves it).
    while room.table.game.turn != 1:
        await one_turn(room, host, clock)
    version = room.table.version
    await clock.advance(5)
    await settle()
    assert room.table.version == version
    await play_turn(room, nima)
    assert room.table.game.turn != 1


async def test_declined_and_withdrawn_requests_go_and_a_former_player_needs_no_approval(
    manager: RoomManager, clock: ManualClock
) -> None:
    room, sockets, tokens = await two_people(manager, seats=3)
    host, guest = sockets
    await host.say({"type": "bot_seat", "seat": 1, "level": "easy"})
    guest.drain()
    # A stranger asks; the host declines: the request is gone, the bot plays on.
    omid = FakeSocket(room)
    await omid.say({"type": "hello"})
    await omid.say({"type": "request_seat", "seat": 1, "name": "Omid"})
    assert room.table.seats[1].claim is not None
    assert codes(await guest.say({"type": "request_seat", "seat": 1})) == ["seat_requested"]
    await host.say({"type": "decline_seat", "seat": 1})
    assert room.table.seats[1].claim is None and room.table.seats[1].is_bot
    assert codes(await host.say({"type": "decline_seat", "seat": 1})) == ["no_request"]
    # The declined asker waits before asking again (DECLINED_COOL_DOWN_SECONDS).
    assert codes(await omid.say({"type": "request_seat", "seat": 1, "name": "Omid"})) == ["rate_limited"]
    await clock.advance(30)
    # Asking again, then leaving: the request goes with the asker.
    await omid.say({"type": "request_seat", "seat": 1, "name": "Omid"})
    assert room.table.seats[1].claim is not None
    await room.detach(omid.conn)
    assert room.table.seats[1].claim is None
    # Bob, whose seat it was, asks for it back: no approval; it passes at once if no move was made yet,
    # else when the next round is dealt.
    assert room.table.game is not None
    out = await guest.say({"type": "request_seat", "seat": 1})
    claim = room.table.seats[1].claim
    if room.table.between_rounds():
        assert room.table.seats[1].token_hash == hash_token(tokens[1]) and not room.table.seats[1].is_bot
    else:
        assert claim is not None and claim.approved and claim.token_hash == hash_token(tokens[1])
        assert claim.name == "Guest"
    assert [m["type"] for m in out if m["type"] == "seat_requested"] == ["seat_requested"]
    assert "token" not in [m for m in out if m["type"] == "seat_requested"][0]  # kept their own token


async def test_a_restart_keeps_the_turn_timer_and_the_bots_history(
    manager: RoomManager, clock: ManualClock, sqlite_url: str
) -> None:
    room, sockets, _ = await two_people(manager, timer=30)
    assert room.table.game is not None
    # A few turns, so the round has public history; then the turn timer has run 10 of its 30 seconds.
    for _ in range(3):
        await play_turn(room, sockets[room.table.game.turn])
    while not room.table.game.round_log:  # a round may have just ended: play into the next one
        await play_turn(room, sockets[room.table.game.turn])
    history, started, version = room.table.game.round_log, room.table.turn_started, room.table.version
    seat = room.table.game.turn
    await clock.advance(10)
    await manager.close()

    store = Store(sqlite_url)
    settings = Settings(_env_file=None, database_url=sqlite_url, bot_delay_ms=700)  # type: ignore[call-arg]
    second = RoomManager(store=store, settings=settings, clock=clock)
    try:
        again = await second.get(room.code)
        assert again is not None and again.table.version == version
        assert again.table.turn_started == started
        assert again.table.game is not None and again.table.game.round_log == history, (
            "the bots' public history survives"
        )
        assert turn_deadline(again.table, again.timing) == started + timedelta(seconds=30)
        watcher = FakeSocket(again)
        assert (await watcher.say({"type": "hello"}))[-1]["room"]["turn_deadline"] == iso(clock, 20)
        await clock.advance(19.9)
        await settle()
        assert again.table.version == version
        await clock.advance(0.2)  # 30 s after the turn began, though the server restarted meanwhile
        await wait_until(lambda: again.table.version == version + 2)
        assert again.table.game_id is not None
        assert [a.seat for a in (await list_actions(store, again.table.game_id))[-2:]] == [seat, seat]
        # Nobody reconnected: the other seat's turn is played when its own timer runs out (before the
        # grace period, which restarted with the process, ends).
        await clock.advance(29.8)
        await settle()
        assert again.table.version == version + 2
        await clock.advance(0.3)
        await wait_until(lambda: again.table.version == version + 4)
        shown = watcher.drain()[-1]["room"]["seats"]
        assert [s["auto"] for s in shown] == [False, False]
        await clock.advance(19.9)  # 60 s after the restart: both seats are played as absent, at a bot's pace
        await wait_until(lambda: again.table.version == version + 6)
        assert [s["auto"] for s in watcher.drain()[-1]["room"]["seats"]] == [True, True]
    finally:
        await second.close()
        await store.close()
