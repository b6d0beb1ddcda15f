"""Rooms without sockets: lobby rules, lifecycle, presence, bots on a manual clock, tokens."""

from __future__ import annotations

import asyncio
import hashlib

import pytest

from app.engine import GameState, action_to_dict
from app.engine.bots import choose_action
from app.protocol import Pong
from app.rooms import (
    CODE_ALPHABET,
    Connection,
    RoomManager,
    RoomStatus,
    WrongStatus,
    new_room_code,
    normalize_code,
)
from app.rooms.connection import CLOSE_TRY_AGAIN
from app.rooms.room import BOT_MAX_FAILURES, BOT_RETRY_SECONDS, TRANSITIONS

from .fakes import FakeSocket, ManualClock, wait_until


def codes(messages: list[dict]) -> list[str]:  # type: ignore[type-arg]
    return [m["code"] for m in messages if m["type"] == "error"]


async def seated(manager: RoomManager, seats: int = 4, bots: list[str] | None = None):  # type: ignore[no-untyped-def]
    room, token = await manager.create(name="Host", seat_count=seats, bots=bots or [], options={})
    host = FakeSocket(room)
    await host.say({"type": "hello", "token": token})
    return room, host, token


def test_room_codes_are_readable_and_unguessable() -> None:
    code = new_room_code()
    assert len(code) == 8 and set(code) <= set(CODE_ALPHABET)
    assert not set("01OIL") & set(CODE_ALPHABET)
    assert len(CODE_ALPHABET) ** 8 > 2**39
    assert normalize_code(" abcd2345 ") == "ABCD2345"
    assert normalize_code("../etc") is None


def test_lifecycle_transitions_name_what_was_expected() -> None:
    assert TRANSITIONS[RoomStatus.LOBBY] == {RoomStatus.PLAYING}
    error = WrongStatus("start the game", RoomStatus.LOBBY, RoomStatus.PLAYING)
    assert error.code == "wrong_status"
    assert "playing" in error.message and "lobby" in error.message


async def test_tokens_are_stored_only_as_hashes(manager: RoomManager) -> None:
    room, _host, token = await seated(manager)
    record = await manager.store.load_room(room.code)
    assert record is not None
    assert record.seats[0].token_hash == hashlib.sha256(token.encode()).hexdigest()
    assert token not in repr(record)


async def test_lobby_rules(manager: RoomManager) -> None:
    room, host, _ = await seated(manager, seats=3)
    seat, token = await room.join("Guest")
    assert seat == 1 and token
    guest = FakeSocket(room)
    out = await guest.say({"type": "hello", "token": token})
    assert out[0] == {"type": "welcome", "room": room.code, "seat": 1, "you_are_host": False}
    host.drain()
    for message in ({"type": "start"}, {"type": "add_bot"}, {"type": "set_options", "seats": 5}):
        assert codes(await guest.say(message)) == ["not_host"]
    version = room.version
    out = await host.say({"type": "set_options", "options": {"ace_high_low": True}, "seats": 4})
    assert room.version == version + 1 and out[-1]["type"] == "state"
    assert out[-1]["room"]["options"]["ace_high_low"] is True and out[-1]["room"]["seat_count"] == 4
    assert codes(await host.say({"type": "set_options", "options": {"nope": 1}})) == ["bad_options"]
    assert codes(await host.say({"type": "set_options", "options": {"decks": 1}})) == ["bad_options"]
    assert room.version == version + 1  # refusals change nothing
    await host.say({"type": "add_bot", "level": "easy"})
    await host.say({"type": "add_bot"})
    assert [(s.index, s.is_bot, s.bot_level) for s in room.seats] == [
        (0, False, None),
        (1, False, None),
        (2, True, "easy"),
        (3, True, "normal"),
    ]
    assert codes(await host.say({"type": "add_bot"})) == ["seats_full"]
    assert codes(await host.say({"type": "set_options", "seats": 3})) == ["not_allowed"]
    assert (await room.join("Late")) == (None, None)
    assert codes(await host.say({"type": "remove_seat", "seat": 0})) == ["not_allowed"]
    assert codes(await host.say({"type": "remove_seat", "seat": 7})) == ["bad_message"]
    # Kick the guest: the guest's socket becomes a spectator; the bots move down.
    guest.drain()
    await host.say({"type": "remove_seat", "seat": 1})
    assert [m for m in guest.drain() if m["type"] == "welcome"] == [
        {"type": "welcome", "room": room.code, "seat": None, "you_are_host": False}
    ]
    assert [(s.index, s.name) for s in room.seats] == [(0, "Host"), (1, "Bot 3"), (2, "Bot 4")]
    record = await manager.store.load_room(room.code)
    assert record is not None and [s.name for s in record.seats] == ["Host", "Bot 3", "Bot 4"]
    assert codes(
        await guest.say({"type": "action", "id": "a", "action": {"type": "draw", "source": "stock"}})
    ) == ["not_seated"]
    assert codes(
        await host.say({"type": "action", "id": "a", "action": {"type": "draw", "source": "stock"}})
    ) == ["game_not_started"]
    assert codes(await host.say({"type": "rematch"})) == ["wrong_status"]
    out = await host.say({"type": "start"})
    assert room.status is RoomStatus.PLAYING and out[-1]["room"]["status"] == "playing"
    assert out[-1]["game"]["seat"] == 0 and len(out[-1]["game"]["hand"]) == 3
    for message in ({"type": "start"}, {"type": "add_bot"}, {"type": "remove_seat", "seat": 1}):
        error = await host.say(message)
        assert codes(error) == ["wrong_status"]
    assert "playing" in error[0]["message"] and "lobby" in error[0]["message"]


async def test_start_needs_two_seats(manager: RoomManager) -> None:
    room, host, _ = await seated(manager, seats=2)
    assert codes(await host.say({"type": "start"})) == ["not_allowed"]
    assert room.status is RoomStatus.LOBBY


async def test_presence_and_spectators(manager: RoomManager) -> None:
    room, host, token = await seated(manager, seats=2)
    tab = FakeSocket(room)
    await tab.say({"type": "hello", "token": token})
    watcher = FakeSocket(room)
    out = await watcher.say({"type": "hello"})
    assert out[-1]["room"]["spectators"] == 1 and out[-1]["room"]["seats"][0]["connected"] is True
    host.drain()
    await room.detach(tab.conn)  # one of two tabs closes: still connected
    assert host.drain()[-1]["room"]["seats"][0]["connected"] is True
    await room.detach(host.conn)
    last = watcher.drain()[-1]
    assert last["room"]["seats"][0]["connected"] is False
    assert (await watcher.say({"type": "ping"})) == [Pong().model_dump()]


async def test_bots_wait_for_their_delay_then_play_through_the_same_path(
    manager: RoomManager, clock: ManualClock
) -> None:
    room, host, _ = await seated(manager, seats=3, bots=["normal", "easy"])
    await host.say({"type": "start"})
    assert room.game is not None
    game_id = room.game_id
    assert game_id is not None
    for _ in range(30):  # play several turns of the person; the bots answer after their delay
        if room.game.turn != 0:
            version = room.version
            await wait_until(lambda: clock.sleeping > 0)
            await clock.advance(0.5)
            assert room.version == version  # not yet
            await clock.advance(0.2)
            await wait_until(lambda v=version: room.version > v)  # type: ignore[misc]
            continue
        state: GameState = room.game
        move = action_to_dict(choose_action(state, 0, "normal", state.moves))
        host.drain()
        out = await host.say(
            {"type": "action", "id": f"m{state.moves}", "version": room.version, "action": move}
        )
        assert out[0]["type"] == "ack"
    actions = await manager.store.list_actions(game_id)
    assert {a.seat for a in actions} == {0, 1, 2}
    assert all((a.client_id is None) == (a.seat != 0) for a in actions)
    assert [a.version for a in actions] == sorted(a.version for a in actions)


async def test_a_bot_retries_a_failed_commit_then_gives_up_after_failures_in_a_row(
    manager: RoomManager, clock: ManualClock
) -> None:
    room, host, _ = await seated(manager, seats=2, bots=["easy"])
    await host.say({"type": "start"})
    commit = manager.store.record_action
    failing = 0
    attempts = 0

    async def flaky(**kwargs):  # type: ignore[no-untyped-def]
        nonlocal failing, attempts
        attempts += 1
        if failing:
            failing -= 1
            raise RuntimeError("the database is away")
        await commit(**kwargs)

    manager.store.record_action = flaky  # type: ignore[method-assign]
    assert room.game is not None
    while room.game.turn != 1:  # the person plays until it is the bot's turn
        state: GameState = room.game
        move = action_to_dict(choose_action(state, 0, "normal", state.moves))
        await host.say({"type": "action", "id": f"m{state.moves}", "version": room.version, "action": move})
    version, failing, attempts = room.version, 2, 0
    for wait in (0.7, BOT_RETRY_SECONDS, 2 * BOT_RETRY_SECONDS):  # the delay, then longer after each failure
        await wait_until(lambda: clock.sleeping > 0)
        assert room.version == version
        await clock.advance(wait)
    await wait_until(lambda: room.version > version)
    assert attempts == 3  # two failures, then the move committed

    failing, attempts = 1000, 0  # the bot's next move (its discard) never commits
    task = room._bot_task
    assert task is not None
    for _ in range(3 * BOT_MAX_FAILURES):
        await wait_until(lambda: clock.sleeping > 0 or task.done())
        if task.done():
            break
        await clock.advance(BOT_RETRY_SECONDS * BOT_MAX_FAILURES)  # past any back-off
    assert attempts == BOT_MAX_FAILURES
    await clock.advance(60)
    assert attempts == BOT_MAX_FAILURES  # it stopped trying until the table changes again


async def test_a_whole_game_against_bots_then_a_rematch(sqlite_url: str) -> None:
    from app.config import Settings
    from app.store import Store, run_migrations

    await run_migrations(sqlite_url)
    store = Store(sqlite_url)
    manager = RoomManager(
        store=store,
        settings=Settings(_env_file=None, database_url=sqlite_url, bot_delay_ms=0),  # type: ignore[call-arg]
    )
    try:
        room, host, _ = await seated(manager, seats=2, bots=["random"])
        await host.say({"type": "start"})
        while room.game is not None and not room.game.is_over:
            if room.game.turn == 0:
                state = room.game
                move = action_to_dict(choose_action(state, 0, "normal", state.moves))
                host.drain()
                out = await host.say({"type": "action", "id": f"m{state.moves}", "action": move})
                assert out[0]["type"] == "ack", out
            else:
                await asyncio.sleep(0.001)
        assert room.status is RoomStatus.FINISHED
        host.drain()
        final = host.seen[-1]  # the last state, whether a bot's move or the host's ended the game
        assert final["room"]["status"] == "finished" and final["game"]["phase"] == "game_over"
        first_game = room.game_id
        out = await host.say({"type": "rematch"})
        assert room.status is RoomStatus.PLAYING and room.game_id != first_game and room.game_number == 2
        assert out[-1]["room"]["game_number"] == 2 and out[-1]["game"]["round"] == 1
        # The rematch survives a reload from the store.
        manager.rooms.clear()
        again = await manager.get(room.code)
        assert again is not None and again.game_number == 2 and again.status is RoomStatus.PLAYING
        await again.close()
        await room.close()
    finally:
        await manager.close()
        await store.close()


async def test_a_slow_socket_is_dropped_not_waited_for() -> None:
    conn = Connection(max_queue=3)
    for _ in range(4):
        conn.send(Pong())
    assert conn.close_code == CLOSE_TRY_AGAIN
    assert await conn.next_outgoing() is None


@pytest.mark.parametrize("text", ["", "   ", "a\x00b", "x" * 201])
async def test_chat_lines_are_checked(manager: RoomManager, text: str) -> None:
    room, host, _ = await seated(manager)
    assert codes(await host.say({"type": "chat", "text": text})) == ["bad_message"]


async def test_chat_is_rate_limited(manager: RoomManager, clock: ManualClock) -> None:
    room, host, _ = await seated(manager)
    for i in range(5):
        out = await host.say({"type": "chat", "text": f"line {i}"})
        assert out[0]["type"] == "chat" and out[0]["at"].endswith("Z")
    assert codes(await host.say({"type": "chat", "text": "too many"})) == ["rate_limited"]
    await clock.advance(11)
    assert (await host.say({"type": "chat", "text": "later"}))[0]["text"] == "later"


async def test_two_processes_on_one_database_never_both_win(manager: RoomManager, sqlite_url: str) -> None:
    """A second RoomManager stands for a second server process: the store's version check referees."""
    from app.config import Settings
    from app.store import Store

    room_a, host_a, token = await seated(manager, seats=2, bots=["normal"])
    await host_a.say({"type": "start"})
    store_b = Store(sqlite_url)
    manager_b = RoomManager(
        store=store_b,
        settings=Settings(_env_file=None, database_url=sqlite_url, bot_delay_ms=10_000),  # type: ignore[call-arg]
        clock=ManualClock(),
    )
    try:
        assert room_a.game is not None
        while room_a.game.turn != 0:  # let the bot of process A play its turn (draw, then discard) first
            version = room_a.version
            await wait_until(lambda: manager.clock.sleeping > 0)  # type: ignore[attr-defined]
            await manager.clock.advance(1)  # type: ignore[attr-defined]
            await wait_until(lambda v=version: room_a.version > v)  # type: ignore[misc]
        room_b = await manager_b.get(room_a.code)
        assert room_b is not None and room_b.version == room_a.version
        host_b = FakeSocket(room_b)
        await host_b.say({"type": "hello", "token": token})
        # Process A plays the host's draw; process B, still at the old version, tries the same turn.
        host_a.drain()
        assert (
            await host_a.say({"type": "action", "id": "a", "action": {"type": "draw", "source": "stock"}})
        )[0]["type"] == "ack"
        host_b.drain()
        out = await host_b.say({"type": "action", "id": "b", "action": {"type": "draw", "source": "discard"}})
        assert codes(out) == ["stale_version"] and out[1]["type"] == "state"
        assert room_b.version == room_a.version  # B caught up from the store
        assert out[1]["game"]["phase"] == "discard"
        retry = await host_b.say({"type": "action", "id": "a", "action": {"type": "draw", "source": "stock"}})
        assert retry[0] == {"type": "ack", "id": "a", "version": room_a.version}
        client_ids = [a.client_id for a in await store_b.list_actions(room_a.game_id or 0) if a.client_id]
        assert client_ids == ["a"]
    finally:
        await manager_b.close()
        await store_b.close()
