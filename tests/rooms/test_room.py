"""Rooms without sockets: lobby rules, lifecycle, presence, bots on a manual clock, tokens."""

from __future__ import annotations

import asyncio
import hashlib
import json
from datetime import UTC, datetime
from types import SimpleNamespace

import pytest

from app.engine import GameState, action_to_dict
from app.engine.bots import choose_action
from app.protocol import ChatOut, MessageRefused, Pong, parse_client_message
from app.rooms import (
    CODE_ALPHABET,
    Connection,
    Room,
    RoomManager,
    new_room_code,
    normalize_code,
)
from app.rooms.broadcast import Notice
from app.rooms.connection import CLOSE_TRY_AGAIN
from app.rooms.driver import MAX_FAILURES as BOT_MAX_FAILURES
from app.rooms.driver import RETRY_SECONDS as BOT_RETRY_SECONDS
from app.rooms.feed import RoundMoves
from app.rooms.kept_chat import CHAT_BOUND
from app.rooms.manager import FOLLOWED_IDLE_SECONDS
from app.rooms.room import PRESENCE_SECONDS
from app.store import ChatBound, ChatRecord
from app.table import TRANSITIONS, Change, RoomStatus, WrongStatus
from tests.reads import list_actions

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
    assert TRANSITIONS[RoomStatus.FINISHED] == {RoomStatus.PLAYING, RoomStatus.LOBBY}
    error = WrongStatus("start the game", RoomStatus.LOBBY, RoomStatus.PLAYING)
    assert error.code == "wrong_status"
    assert "playing" in error.message and "lobby" in error.message


async def test_tokens_are_stored_only_as_hashes(manager: RoomManager) -> None:
    room, _host, token = await seated(manager)
    loaded = await manager.store.load_table(room.code)
    assert loaded is not None
    assert loaded.table.seats[0].token_hash == hashlib.sha256(token.encode()).hexdigest()
    assert token not in repr(loaded)


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
    version = room.table.version
    out = await host.say({"type": "set_options", "options": {"ace_high_low": True}, "seats": 4})
    assert room.table.version == version + 1 and out[-1]["type"] == "state"
    assert out[-1]["room"]["options"]["ace_high_low"] is True and out[-1]["room"]["seat_count"] == 4
    assert codes(await host.say({"type": "set_options", "options": {"nope": 1}})) == ["bad_options"]
    assert codes(await host.say({"type": "set_options", "options": {"decks": 1}})) == ["bad_options"]
    assert room.table.version == version + 1  # refusals change nothing
    await host.say({"type": "add_bot", "level": "easy"})
    await host.say({"type": "add_bot"})
    assert [(s.index, s.is_bot, s.bot_level) for s in room.table.seats] == [
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
    assert [(s.index, s.name) for s in room.table.seats] == [(0, "Host"), (1, "Bot 3"), (2, "Bot 4")]
    loaded = await manager.store.load_table(room.code)
    assert loaded is not None and [s.name for s in loaded.table.seats] == ["Host", "Bot 3", "Bot 4"]
    assert codes(
        await guest.say({"type": "action", "id": "a", "action": {"type": "draw", "source": "stock"}})
    ) == ["not_seated"]
    assert codes(
        await host.say({"type": "action", "id": "a", "action": {"type": "draw", "source": "stock"}})
    ) == ["game_not_started"]
    assert codes(await host.say({"type": "rematch"})) == ["wrong_status"]
    out = await host.say({"type": "start"})
    assert room.table.status is RoomStatus.PLAYING and out[-1]["room"]["status"] == "playing"
    assert out[-1]["game"]["seat"] == 0 and len(out[-1]["game"]["hand"]) == 3
    for message in ({"type": "start"}, {"type": "add_bot"}, {"type": "remove_seat", "seat": 1}):
        error = await host.say(message)
        assert codes(error) == ["wrong_status"]
    assert "playing" in error[0]["message"] and "lobby" in error[0]["message"]


async def test_start_needs_two_seats(manager: RoomManager) -> None:
    room, host, _ = await seated(manager, seats=2)
    assert codes(await host.say({"type": "start"})) == ["not_allowed"]
    assert room.table.status is RoomStatus.LOBBY


async def test_presence_and_spectators(manager: RoomManager, clock: ManualClock) -> None:
    room, host, token = await seated(manager, seats=2)
    tab = FakeSocket(room)
    await tab.say({"type": "hello", "token": token})
    watcher = FakeSocket(room)
    out = await watcher.say({"type": "hello"})
    assert out[-1]["room"]["spectators"] == 1 and out[-1]["room"]["seats"][0]["connected"] is True
    await room.detach(tab.conn)  # one of two tabs closes: still connected
    await clock.advance(PRESENCE_SECONDS)  # presence is told at most once per PRESENCE_SECONDS
    assert host.drain()[-1]["room"]["seats"][0]["connected"] is True
    await room.detach(host.conn)
    await clock.advance(PRESENCE_SECONDS)
    last = watcher.drain()[-1]
    assert last["room"]["seats"][0]["connected"] is False
    assert (await watcher.say({"type": "ping"})) == [Pong().model_dump()]


async def test_bots_wait_for_their_delay_then_play_through_the_same_path(
    manager: RoomManager, clock: ManualClock
) -> None:
    room, host, _ = await seated(manager, seats=3, bots=["normal", "easy"])
    await host.say({"type": "start"})
    assert room.table.game is not None
    game_id = room.table.game_id
    assert game_id is not None
    for _ in range(30):  # play several turns of the person; the bots answer after their delay
        if room.table.game.turn != 0:
            version = room.table.version
            await wait_until(lambda: clock.sleeping > 0)
            await clock.advance(0.5)
            assert room.table.version == version  # not yet
            await clock.advance(0.2)
            await wait_until(lambda v=version: room.table.version > v)  # type: ignore[misc]
            continue
        state: GameState = room.table.game
        move = action_to_dict(choose_action(state, 0, "normal", state.moves))
        host.drain()
        out = await host.say(
            {"type": "action", "id": f"m{state.moves}", "version": room.table.version, "action": move}
        )
        assert out[0]["type"] == "ack"
    actions = await list_actions(manager.store, game_id)
    assert {a.seat for a in actions} == {0, 1, 2}
    assert all((a.client_id is None) == (a.seat != 0) for a in actions)
    assert [a.version for a in actions] == sorted(a.version for a in actions)


async def test_a_bot_retries_a_failed_commit_then_gives_up_after_failures_in_a_row(
    manager: RoomManager, clock: ManualClock
) -> None:
    room, host, _ = await seated(manager, seats=2, bots=["easy"])
    await host.say({"type": "start"})
    commit = manager.store.commit
    failing = 0
    attempts = 0

    async def flaky(change: Change) -> int | None:
        nonlocal failing, attempts
        attempts += 1
        if failing:
            failing -= 1
            raise RuntimeError("the database is away")
        return await commit(change)

    manager.store.commit = flaky  # type: ignore[method-assign]
    assert room.table.game is not None
    while room.table.game.turn != 1:  # the person plays until it is the bot's turn
        state: GameState = room.table.game
        move = action_to_dict(choose_action(state, 0, "normal", state.moves))
        await host.say(
            {"type": "action", "id": f"m{state.moves}", "version": room.table.version, "action": move}
        )
    version, failing, attempts = room.table.version, 2, 0
    for wait in (0.7, BOT_RETRY_SECONDS, 2 * BOT_RETRY_SECONDS):  # the delay, then longer after each failure
        await wait_until(lambda: clock.sleeping > 0)
        assert room.table.version == version
        await clock.advance(wait)
    await wait_until(lambda: room.table.version > version)
    assert attempts == 3  # two failures, then the move committed

    failing, attempts = 1000, 0  # the bot's next move (its discard) never commits
    task = room.driver.task
    assert task is not None
    for _ in range(3 * BOT_MAX_FAILURES):
        await wait_until(lambda: clock.sleeping > 0 or task.done())
        if task.done():
            break
        await clock.advance(BOT_RETRY_SECONDS * BOT_MAX_FAILURES)  # past any back-off
    assert attempts == BOT_MAX_FAILURES
    await clock.advance(60)
    assert attempts == BOT_MAX_FAILURES  # it stopped trying until the table changes again


async def play_to_the_end(room, host) -> None:  # type: ignore[no-untyped-def]
    """The host plays seat 0 against the bots until the game (started) is over."""
    while room.table.game is not None and not room.table.game.is_over:
        if room.table.game.turn == 0:
            state = room.table.game
            move = action_to_dict(choose_action(state, 0, "normal", state.moves))
            host.drain()
            out = await host.say({"type": "action", "id": f"m{state.moves}", "action": move})
            assert "ack" in [m["type"] for m in out] and not codes(out), out  # presence news may come too
        else:
            await asyncio.sleep(0.001)
    assert room.table.status is RoomStatus.FINISHED


def sqlite_manager(sqlite_url: str):  # type: ignore[no-untyped-def]
    from app.config import Settings
    from app.store import Store

    store = Store(sqlite_url)
    settings = Settings(_env_file=None, database_url=sqlite_url, bot_delay_ms=0)  # type: ignore[call-arg]
    return store, RoomManager(store=store, settings=settings)


async def test_a_whole_game_against_bots_then_a_rematch(sqlite_url: str) -> None:
    from app.store import run_migrations

    await run_migrations(sqlite_url)
    store, manager = sqlite_manager(sqlite_url)
    try:
        room, host, _ = await seated(manager, seats=2, bots=["random"])
        await host.say({"type": "start"})
        await play_to_the_end(room, host)
        host.drain()
        final = host.seen[-1]  # the last state, whether a bot's move or the host's ended the game
        assert final["room"]["status"] == "finished" and final["game"]["phase"] == "game_over"
        first_game = room.table.game_id
        out = await host.say({"type": "rematch"})
        assert (
            room.table.status is RoomStatus.PLAYING
            and room.table.game_id != first_game
            and room.table.game_number == 2
        )
        assert out[-1]["room"]["game_number"] == 2 and out[-1]["game"]["round"] == 1
        # The rematch survives a reload from the store.
        manager.rooms.clear()
        again = await manager.get(room.code)
        assert again is not None and again.table.game_number == 2 and again.table.status is RoomStatus.PLAYING
        await again.close()
        await room.close()
    finally:
        await manager.close()
        await store.close()


async def test_after_a_game_the_host_goes_back_to_the_lobby_changes_the_table_and_starts_again(
    sqlite_url: str,
) -> None:
    from app.store import run_migrations

    await run_migrations(sqlite_url)
    store, manager = sqlite_manager(sqlite_url)
    try:
        room, host, _ = await seated(manager, seats=3, bots=["random"])
        _, guest_token = await room.join("Nima")
        guest = FakeSocket(room)
        await guest.say({"type": "hello", "token": guest_token})
        await host.say({"type": "start"})
        await host.say({"type": "bot_seat", "seat": 2, "level": "random"})  # Nima leaves his seat to a bot
        await play_to_the_end(room, host)
        first = room.table.game_public_id
        assert codes(await guest.say({"type": "reopen"})) == ["not_seated"]
        out = await host.say({"type": "reopen"})
        state = out[-1]
        assert room.table.status is RoomStatus.LOBBY and state["room"]["status"] == "lobby"
        assert state["game"] is None and state["room"]["game_id"] == first  # the last game is still named
        assert codes(await host.say({"type": "reopen"})) == ["wrong_status"]
        # The host changes the rules and the seats; the ready check shows who is in.
        await host.say({"type": "set_options", "options": {"jokers": True}, "seats": 3})
        await host.say({"type": "remove_seat", "seat": 2})
        assert [s["name"] for s in host.seen[-1]["room"]["seats"]] == ["Host", "Bot 2"]
        out = await host.say({"type": "ready"})
        presence = [m for m in out if m["type"] == "presence"]
        assert presence and presence[-1]["room"]["ready"] == [0]
        assert codes(await host.say({"type": "ready"})) == []  # said already: nothing changes
        out = await host.say({"type": "start"})
        started = out[-1]
        assert started["room"]["status"] == "playing" and started["room"]["game_number"] == 2
        assert started["room"]["options"]["jokers"] is True and started["room"]["ready"] == []
        assert started["room"]["game_id"] != first
        # The lobby and the next game survive a reload from the store.
        manager.rooms.clear()
        again = await manager.get(room.code)
        assert again is not None and again.table.game_number == 2 and again.table.options.jokers
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


async def test_a_hello_is_welcomed_with_the_tables_recent_chat(
    manager: RoomManager, clock: ManualClock
) -> None:
    room, host, token = await seated(manager)
    for i in range(3):
        await host.say({"type": "chat", "text": f"line {i}"})
    await host.say({"type": "react", "emoji": "👍"})  # shown as a line, as the page showed it live
    again = FakeSocket(room)  # the same person after a reload
    welcome = (await again.say({"type": "hello", "token": token}))[0]
    assert welcome["type"] == "welcome"
    assert [(line["seat"], line["name"], line["text"]) for line in welcome["chat"]] == [
        *[(0, "Host", f"line {i}") for i in range(3)],
        (0, "Host", "👍"),
    ]
    assert [line.get("reaction") for line in welcome["chat"]] == [None, None, None, True]
    assert all(line["at"].endswith("Z") for line in welcome["chat"])
    watcher = FakeSocket(room)  # a watcher reads them too
    assert [line["text"] for line in (await watcher.say({"type": "hello"}))[0]["chat"]][-1] == "👍"


async def test_a_chat_line_or_reaction_the_store_cannot_keep_is_refused_and_heard_by_nobody(
    manager: RoomManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    room, host, _ = await seated(manager)
    watcher = FakeSocket(room)
    await watcher.say({"type": "hello"})
    watcher.drain()

    async def away(*_: object) -> None:
        raise OSError("the database went away")

    monkeypatch.setattr(room.store, "add_chat", away)
    for said in ({"type": "chat", "text": "lost"}, {"type": "react", "emoji": "👍"}):
        assert [m["type"] for m in await host.say(said)] == ["error"]  # not even its sender hears it
        assert codes(host.seen[-1:]) == ["not_ready"]
    assert watcher.drain() == []
    monkeypatch.undo()
    assert (await FakeSocket(room).say({"type": "hello"}))[0].get("chat") is None


async def test_a_welcome_reads_the_chat_again_when_another_process_spoke_during_its_read(
    manager: RoomManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    room, _, _ = await seated(manager)
    seat, _ = await room.join("Bob")
    assert seat == 1
    line = ChatOut(seat=1, name="Bob", text="meanwhile", at="2026-12-04T08:00:00.000Z")
    read, reads = room.store.recent_chat, 0

    async def racing_read(code: str, bound: ChatBound) -> list[ChatRecord]:
        nonlocal reads
        reads += 1
        kept = await read(code, bound)
        if reads == 1:  # another process keeps Bob's line and its notice arrives while this read is out
            await room.store.add_chat(code, ChatRecord(1, "Bob", line.text, datetime.now(UTC)), bound)
            room.follower.on_notice(Notice(room.code, "chat", room.table.version, line.model_dump()))
        return kept

    monkeypatch.setattr(room.store, "recent_chat", racing_read)
    room.chat.forget()  # as after a resync: the welcome reads the store
    welcome = (await FakeSocket(room).say({"type": "hello"}))[0]
    assert [line["text"] for line in welcome["chat"]] == ["meanwhile"] and reads == 2


async def welcome_chat(room: Room) -> list[dict[str, object]]:
    return (await FakeSocket(room).say({"type": "hello"}))[0]["chat"]  # type: ignore[no-any-return]


async def test_welcomes_read_the_kept_chat_once_and_again_after_notices_may_have_been_missed(
    manager: RoomManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    room, host, token = await seated(manager)
    await host.say({"type": "chat", "text": "first"})
    read, reads = room.store.recent_chat, 0

    async def counted(code: str, bound: ChatBound) -> list[ChatRecord]:
        nonlocal reads
        reads += 1
        return await read(code, bound)

    monkeypatch.setattr(room.store, "recent_chat", counted)
    for _ in range(3):
        assert [line["text"] for line in await welcome_chat(room)] == ["first"]
    await host.say({"type": "chat", "text": "second"})
    welcome = (await FakeSocket(room).say({"type": "hello", "token": token}))[0]
    assert [line["text"] for line in welcome["chat"]] == ["first", "second"]
    assert reads == 0  # a table made here has said nothing: no welcome read the store
    # Another process kept a line whose notice never came (Redis restarted): once the room resyncs, read.
    await room.store.add_chat(room.code, ChatRecord(0, "Host", "missed", datetime.now(UTC)), CHAT_BOUND)
    assert [line["text"] for line in await welcome_chat(room)][-1] == "second"
    manager._resync(None)
    welcome = (await FakeSocket(room).say({"type": "hello"}))[0]
    assert [line["text"] for line in welcome["chat"]] == ["first", "second", "missed"] and reads == 1
    # A peer fell silent (died) after keeping a line it never told of: read again too.
    await room.store.add_chat(room.code, ChatRecord(0, "Host", "untold", datetime.now(UTC)), CHAT_BOUND)
    room.follower.heard_store_version(room.table.version, at_once=False)  # the regular sweep: nothing
    assert [line["text"] for line in await welcome_chat(room)][-1] == "missed"
    room.follower.heard_store_version(room.table.version, at_once=True)
    assert [line["text"] for line in await welcome_chat(room)][-1] == "untold" and reads == 2


async def test_reactions_reach_the_table_and_count_with_the_chat(manager: RoomManager) -> None:
    room, host, _ = await seated(manager)
    watcher = FakeSocket(room)
    await watcher.say({"type": "hello"})
    version = room.table.version
    watcher.drain()
    out = await host.say({"type": "react", "emoji": "👏"})
    assert out == [{"type": "reaction", "seat": 0, "emoji": "👏", "at": "2026-01-01T00:00:00.000Z"}]
    assert watcher.drain() == [
        {"type": "reaction", "seat": 0, "emoji": "👏", "at": "2026-01-01T00:00:00.000Z"}
    ]
    assert codes(await watcher.say({"type": "react", "emoji": "👍"})) == ["not_seated"]
    assert host.drain() == []  # a refused reaction is heard by nobody
    # A reaction made through another process arrives as a notice (Redis) and reaches these sockets too;
    # one from a seat that is not a person's at this table is nobody's, and is dropped.
    await room.join("Bob")
    watcher.drain(), host.drain()
    version = room.table.version
    room.follower.on_notice(Notice(room.code, "reaction", room.table.version, {"seat": 1, "emoji": "😂"}))
    assert watcher.drain() == host.drain() == [{"type": "reaction", "seat": 1, "emoji": "😂"}]
    room.follower.on_notice(Notice(room.code, "reaction", room.table.version, {"seat": 3, "emoji": "😂"}))
    assert watcher.drain() == host.drain() == []
    # Only the offered few: anything else is a malformed message, refused before it reaches the room.
    for emoji in ("💩", "👍👍", "", 7):
        with pytest.raises(MessageRefused) as refused:
            parse_client_message(json.dumps({"type": "react", "emoji": emoji}))
        assert refused.value.code == "bad_message"
    for i in range(4):  # five lines in all with the reaction above: then the chat allowance is spent
        await host.say({"type": "chat", "text": f"line {i}"})
    assert codes(await host.say({"type": "react", "emoji": "😂"})) == ["rate_limited"]
    assert room.table.version == version  # reactions commit nothing


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
        assert room_a.table.game is not None
        while (
            room_a.table.game.turn != 0
        ):  # let the bot of process A play its turn (draw, then discard) first
            version = room_a.table.version
            await wait_until(lambda: manager.clock.sleeping > 0)  # type: ignore[attr-defined]
            await manager.clock.advance(1)  # type: ignore[attr-defined]
            await wait_until(lambda v=version: room_a.table.version > v)  # type: ignore[misc]
        room_b = await manager_b.get(room_a.code)
        assert room_b is not None and room_b.table.version == room_a.table.version
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
        assert room_b.table.version == room_a.table.version  # B caught up from the store
        assert out[1]["game"]["phase"] == "discard"
        retry = await host_b.say({"type": "action", "id": "a", "action": {"type": "draw", "source": "stock"}})
        assert retry[0] == {"type": "ack", "id": "a", "version": room_a.table.version}
        client_ids = [
            a.client_id for a in await list_actions(store_b, room_a.table.game_id or 0) if a.client_id
        ]
        assert client_ids == ["a"]
    finally:
        await manager_b.close()
        await store_b.close()


async def test_a_seat_request_committed_by_another_process_does_not_make_a_move_stale(
    manager: RoomManager, sqlite_url: str
) -> None:
    """Issue 23: process B commits a seat request; process A's cache has not heard of it. A's player, who
    saw the table before the request, still gets the move made (A catches up and makes it again)."""
    from app.config import Settings
    from app.store import Store

    room_a, host_a, _token = await seated(manager, seats=2, bots=["normal"])
    await host_a.say({"type": "start"})
    store_b = Store(sqlite_url)
    manager_b = RoomManager(
        store=store_b,
        settings=Settings(_env_file=None, database_url=sqlite_url, bot_delay_ms=10_000),  # type: ignore[call-arg]
        clock=ManualClock(),
    )
    try:
        assert room_a.table.game is not None
        while room_a.table.game.turn != 0:  # let the bot play its turn first
            version = room_a.table.version
            await wait_until(lambda: manager.clock.sleeping > 0)  # type: ignore[attr-defined]
            await manager.clock.advance(1)  # type: ignore[attr-defined]
            await wait_until(lambda v=version: room_a.table.version > v)  # type: ignore[misc]
        seen = room_a.table.version
        room_b = await manager_b.get(room_a.code)
        assert room_b is not None
        await room_b.join("Eve", 1)  # a request, committed through B (A's cache is not told)
        assert room_a.table.version == seen
        host_a.drain()
        out = await host_a.say(
            {"type": "action", "id": "a", "version": seen, "action": {"type": "draw", "source": "stock"}}
        )
        acks = [m for m in out if m["type"] == "ack"]
        assert codes(out) == [] and acks == [{"type": "ack", "id": "a", "version": seen + 2}]
    finally:
        await manager_b.close()
        await store_b.close()


async def test_a_tab_already_at_the_current_version_gets_presence_and_no_state_again(
    manager: RoomManager,
) -> None:
    room, _host, token = await seated(manager)
    current = FakeSocket(room)
    out = await current.say({"type": "hello", "token": token, "last_version": room.table.version})
    assert [m["type"] for m in out] == ["welcome", "presence"]
    assert out[1]["version"] == room.table.version and out[1]["room"]["seats"][0]["connected"]
    behind = FakeSocket(room)
    out = await behind.say({"type": "hello", "token": token, "last_version": room.table.version - 1})
    assert [m["type"] for m in out] == ["welcome", "presence", "state"]


async def test_a_notice_ahead_of_the_room_makes_it_catch_up_before_it_renders(
    manager: RoomManager, sqlite_url: str
) -> None:
    """Two rooms of one table on one database and one broadcaster (as two processes would be): a change
    committed by one reaches the other's sockets as the table it made, never the stale cache."""
    from app.config import Settings
    from app.store import Store

    room_a, host_a, _ = await seated(manager)
    store_b = Store(sqlite_url)
    manager_b = RoomManager(
        store=store_b,
        settings=Settings(_env_file=None, database_url=sqlite_url),  # type: ignore[call-arg]
        clock=manager.clock,
        broadcaster=manager.broadcaster,
    )
    try:
        room_b = await manager_b.get(room_a.code)
        assert room_b is not None
        watcher = FakeSocket(room_b)
        await watcher.say({"type": "hello"})
        before = room_b.table.version
        await host_a.say({"type": "add_bot", "level": "easy"})
        await wait_until(lambda: room_b.table.version == room_a.table.version)
        states = [m for m in watcher.drain() if m["type"] == "state"]
        assert states and states[-1]["version"] == room_a.table.version == before + 1
        assert [s["name"] for s in states[-1]["room"]["seats"]] == ["Host", "Bot 2"]
        assert all(s["version"] > before for s in states), "no stale table was rendered"
    finally:
        await manager_b.close()
        await store_b.close()


async def test_spectator_churn_is_told_as_one_presence_and_spectators_are_capped(
    manager: RoomManager, clock: ManualClock
) -> None:
    room, host, _ = await seated(manager, seats=2)
    await clock.advance(PRESENCE_SECONDS)
    host.drain()
    for _ in range(20):  # watchers come and go as fast as they can
        watcher = FakeSocket(room)
        await watcher.say({"type": "hello"})
        await room.detach(watcher.conn)
    told = [m for m in host.drain() if m["type"] != "pong"]
    assert [m["type"] for m in told] == ["presence"], "the first change at once; the rest wait"
    await clock.advance(PRESENCE_SECONDS)
    told = host.drain()
    assert [m["type"] for m in told] == ["presence"] and told[0]["room"]["spectators"] == 0, "then one more"
    assert all(m["type"] != "state" for m in told)  # presence carries no game view
    cap = manager.settings.max_spectators_per_table
    watchers = [FakeSocket(room) for _ in range(cap + 1)]
    answers = [await w.say({"type": "hello"}) for w in watchers]
    assert all(a[0]["type"] == "welcome" for a in answers[:cap])
    assert [(m["type"], m.get("code")) for m in answers[cap]] == [("error", "not_allowed")]


async def test_idle_rooms_leave_memory_and_load_again_and_lookups_leave_nothing_behind(
    manager: RoomManager, clock: ManualClock
) -> None:
    for code in ("NOPE2345", "ZZZZ2345", "abcd2345"):
        assert await manager.get(code) is None
    assert manager._loading == {}, "a lookup of a code that does not exist keeps no lock"
    room, host, _ = await seated(manager, seats=2)
    idle = manager.settings.room_idle_seconds
    await clock.advance(idle)
    assert await manager.evict_idle() == 0, "a socket is open"
    await room.detach(host.conn)
    await clock.advance(idle - 1)
    assert await manager.evict_idle() == 0, "not idle for long enough"
    await clock.advance(1)
    assert await manager.evict_idle() == 1 and room.code not in manager.rooms
    again = await manager.get(room.code)
    assert again is not None and again is not room and again.table == room.table


async def test_with_several_processes_a_live_table_with_no_socket_here_soon_leaves_memory(
    manager: RoomManager, clock: ManualClock, elsewhere: RoomManager
) -> None:
    """The balancer puts a table's sockets on one process; the process that created it (or that its last
    socket here left) would otherwise follow every move made elsewhere for ROOM_IDLE_SECONDS. A paced table
    keeps the rule of one process: it moves at its deadline with nobody at it."""
    there: ManualClock = elsewhere.clock  # type: ignore[assignment]
    created, _ = await elsewhere.create(name="Host", seat_count=2, bots=["normal"], options={})
    watched, host, _ = await seated(elsewhere, seats=2)
    paced_room, _ = await elsewhere.create(name="Host", seat_count=2, bots=[], options={"pace": 8})
    await there.advance(FOLLOWED_IDLE_SECONDS - 1)
    assert await elsewhere.evict_idle() == 0
    await there.advance(1)
    assert await elsewhere.evict_idle() == 1
    assert set(elsewhere.rooms) == {watched.code, paced_room.code}, "a socket is here; paced: as before"
    await watched.detach(host.conn)
    await there.advance(FOLLOWED_IDLE_SECONDS)
    assert await elsewhere.evict_idle() == 1 and set(elsewhere.rooms) == {paced_room.code}
    again = await elsewhere.get(created.code)
    assert again is not None and again.table == created.table, "the store is the truth: it loads again"

    alone, _ = await manager.create(name="Host", seat_count=2, bots=[], options={})  # one process
    await clock.advance(FOLLOWED_IDLE_SECONDS * 6)
    assert await manager.evict_idle() == 0 and alone.code in manager.rooms


async def test_lobby_commands_that_change_nothing_write_nothing_and_are_rate_limited(
    manager: RoomManager, clock: ManualClock
) -> None:
    room, host, _ = await seated(manager, seats=4)
    version = room.table.version
    same = {"type": "set_options", "options": {"jokers": False}, "seats": 4}
    assert await host.say(same) == []  # no error, no state: nothing changed, nothing written
    assert room.table.version == version
    allowed = manager.settings.lobby_max_per_10s
    answers = [await host.say(same) for _ in range(allowed + 5)]
    refused = [a for a in answers if a and a[0].get("code") == "rate_limited"]
    assert len(refused) == 6 and room.table.version == version  # 1 + allowed + 5 sent, allowed let through
    await clock.advance(10.1)
    assert await host.say({"type": "set_options", "options": {"jokers": True}}) != []
    assert room.table.version == version + 1


async def test_a_hello_during_a_round_is_welcomed_with_its_moves_so_far(manager: RoomManager) -> None:
    room, host, token = await seated(manager, seats=2)
    _, guest_token = await room.join("Guest")
    guest = FakeSocket(room)
    await guest.say({"type": "hello", "token": guest_token})
    await host.say({"type": "start"})
    game = room.table.game
    assert game is not None
    mover = [host, guest][game.turn]
    draw = {"type": "draw", "source": "stock"}
    await mover.say({"type": "action", "id": "m-1", "version": room.table.version, "action": draw})
    watcher = FakeSocket(room)
    moves = (await watcher.say({"type": "hello"}))[0]["moves"]
    assert moves == [
        {"kind": "draw", "seat": game.turn, "source": "stock"}
    ]  # as a spectator sees it: no card
    again = FakeSocket(room)
    assert (await again.say({"type": "hello", "token": token}))[0]["moves"] == moves


def test_the_round_moves_start_afresh_with_each_round() -> None:
    moves = RoundMoves(SimpleNamespace(playing=None, game_id=None))  # type: ignore[arg-type]
    first = SimpleNamespace(playing=SimpleNamespace(round=1), game_id=7)
    moves.add(
        first, [{"kind": "draw", "seat": 0, "source": "stock"}, {"kind": "discard", "seat": 0, "card": "9S"}]
    )
    assert [m["kind"] for m in moves.moves(first)] == ["draw", "discard"]
    second = SimpleNamespace(playing=SimpleNamespace(round=2), game_id=7)
    moves.add(
        second, [{"kind": "go_out", "seat": 1, "card": "5H"}, {"kind": "round_end"}, {"kind": "round_start"}]
    )
    assert moves.moves(second) == []  # the going out was round one's last move
    moves.add(second, [{"kind": "draw", "seat": 1, "source": "discard", "card": "5H"}])
    assert [m["seat"] for m in moves.moves(second)] == [1]
    assert moves.moves(first) == []  # not the round it holds
    assert moves.moves(SimpleNamespace(playing=None, game_id=7)) == []
