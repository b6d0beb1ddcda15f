"""A cached table is never trusted blindly (issue 22): with several processes, a room whose cache is behind
the store with no notice saying so (the notice died with the process that committed) is checked against the
store wherever that matters, and moves another process made are read from the log, never from a notice.

``elsewhere`` is a second process on the same database that hears none of the first one's notices: exactly
what the survivors see when a process dies between its commit and its publish."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from app.engine import action_to_dict
from app.engine.bots import choose_action
from app.rooms import Notice, Room, RoomManager, peers
from app.rooms.hello import BAD_HELLOS
from app.store import Store

from .fakes import FakeSocket, wait_until


def codes(messages: list[dict[str, Any]]) -> list[str]:
    return [m["code"] for m in messages if m["type"] == "error"]


def states(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in messages if m["type"] == "state"]


async def started(manager: RoomManager, elsewhere: RoomManager) -> tuple[Room, Room, list[str]]:
    """A two-person game started through ``manager``, loaded by ``elsewhere`` too: (here, there, tokens)."""
    room, host = await manager.create(name="Host", seat_count=2, bots=[], options={})
    _, guest = await room.join("Guest")
    assert guest is not None
    sock = FakeSocket(room)
    await sock.say({"type": "hello", "token": host})
    await sock.say({"type": "start"})
    there = await elsewhere.get(room.code)
    assert there is not None and there.table.version == room.table.version
    return room, there, [host, guest]


async def move_here(room: Room, token: str, action_id: str) -> dict[str, Any]:
    """The seat to act plays its move through ``room`` (a socket of its own); returns the ack."""
    assert room.table.game is not None
    seat = room.table.game.turn
    sock = FakeSocket(room)
    await sock.say({"type": "hello", "token": token})
    move = action_to_dict(choose_action(room.table.game, seat, "normal", room.table.game.moves))
    out = await sock.say({"type": "action", "id": action_id, "version": room.table.version, "action": move})
    assert out[0]["type"] == "ack", out
    return out[0]


def token_to_act(room: Room, tokens: list[str]) -> str:
    assert room.table.game is not None
    return tokens[room.table.game.turn]


async def test_a_hello_on_a_stale_cache_gets_the_table_the_store_has(
    manager: RoomManager, elsewhere: RoomManager
) -> None:
    here, there, tokens = await started(manager, elsewhere)
    ack = await move_here(here, token_to_act(here, tokens), "m-1")
    assert there.table.version == ack["version"] - 1  # no notice reached `there`
    for token in [*tokens, None]:  # players, and a watcher: every hello checks the store
        out = await FakeSocket(there).say({"type": "hello", "token": token})
        assert states(out)[-1]["version"] == ack["version"], out
    assert there.table == here.table


async def test_a_retry_reaching_a_stale_cache_is_acked_from_the_log(
    manager: RoomManager, elsewhere: RoomManager
) -> None:
    """The cache of `there` is stale when the retry arrives (its socket said hello before the move)."""
    here, there, tokens = await started(manager, elsewhere)
    mover = token_to_act(here, tokens)
    there_sock = FakeSocket(there)
    await there_sock.say({"type": "hello", "token": mover})  # fresh at this moment
    assert here.table.game is not None
    move = action_to_dict(
        choose_action(here.table.game, here.table.game.turn, "normal", here.table.game.moves)
    )
    version = here.table.version
    here_sock = FakeSocket(here)
    await here_sock.say({"type": "hello", "token": mover})
    assert (await here_sock.say({"type": "action", "id": "x-1", "version": version, "action": move}))[0][
        "type"
    ] == "ack"
    assert there.table.version == version  # stale: nothing told it
    there_sock.drain()
    out = await there_sock.say({"type": "action", "id": "x-1", "version": version, "action": move})
    assert [m for m in out if m["type"] == "ack"] == [{"type": "ack", "id": "x-1", "version": version + 1}]
    assert codes(out) == []
    assert there.table.version == version + 1
    assert states(out)[-1]["version"] == version + 1  # and the socket now holds the table as it is


async def test_a_rest_read_checks_the_store(manager: RoomManager, elsewhere: RoomManager) -> None:
    here, there, tokens = await started(manager, elsewhere)
    ack = await move_here(here, token_to_act(here, tokens), "m-1")
    fresh = await elsewhere.require_fresh(here.code)
    assert fresh is there and json.loads(fresh.state_for(None))["version"] == ack["version"]


async def test_moves_of_another_process_are_read_from_the_log_not_taken_from_a_notice(
    manager: RoomManager, elsewhere: RoomManager
) -> None:
    """A notice only says the version moved: the room reads the moves from the store and applies them
    with the engine, showing each with its events. A forged notice (a version nobody committed, a move in
    its payload) changes nothing."""
    here, there, tokens = await started(manager, elsewhere)
    watcher = FakeSocket(there)
    await watcher.say({"type": "hello"})
    watcher.drain()
    before = there.table
    forged = {"move": {"seat": 0, "action": {"type": "draw", "source": "discard"}, "id": "f", "at": "x"}}
    there.follower.on_notice(Notice(there.code, "state", before.version + 1, forged))
    await wait_until(lambda: there.follower._following is not None and there.follower._following.done())
    assert there.table == before and watcher.drain() == []
    ack = await move_here(here, token_to_act(here, tokens), "m-1")
    there.follower.on_notice(Notice(there.code, "state", ack["version"]))
    await wait_until(lambda: there.table.version == ack["version"])
    assert there.table == here.table
    shown = states(watcher.drain())
    assert [s["version"] for s in shown] == [ack["version"]]
    assert shown[0]["events"] and shown[0]["events"][0]["kind"] == "draw"


async def test_after_a_peer_falls_silent_every_stale_table_catches_up_at_once(
    manager: RoomManager, elsewhere: RoomManager
) -> None:
    here, there, tokens = await started(manager, elsewhere)
    watcher = FakeSocket(there)
    await watcher.say({"type": "hello"})
    watcher.drain()
    ack = await move_here(here, token_to_act(here, tokens), "m-1")
    await elsewhere.check_rooms(at_once=True)  # what the heartbeat does when a peer falls silent
    await wait_until(lambda: there.table.version == ack["version"])
    assert states(watcher.drain())[-1]["version"] == ack["version"]


async def test_the_sweep_catches_a_table_still_behind_at_the_next_sweep(
    manager: RoomManager, elsewhere: RoomManager
) -> None:
    """A table behind at one sweep may just be waiting for a notice in flight; still behind what that sweep
    read at the next one, its notice was lost: it catches up."""
    here, there, tokens = await started(manager, elsewhere)
    ack = await move_here(here, token_to_act(here, tokens), "m-1")
    await elsewhere.check_rooms(at_once=False)
    await asyncio.sleep(0.05)
    assert there.table.version == ack["version"] - 1  # one sweep: a notice may be on its way
    await elsewhere.check_rooms(at_once=False)
    await wait_until(lambda: there.table.version == ack["version"])


async def test_a_seat_handed_over_at_a_round_start_elsewhere_gets_its_grace_from_then(
    manager: RoomManager, elsewhere: RoomManager
) -> None:
    """Presence follows the table whichever way it moved: the new holder of a seat handed over through
    another process is away since the hand-over, not since this process loaded the room."""
    room, host = await manager.create(name="Host", seat_count=2, bots=["normal"], options={})
    sock = FakeSocket(room)
    await sock.say({"type": "hello", "token": host})
    await sock.say({"type": "start"})
    there = await elsewhere.get(room.code)
    assert there is not None

    async def one_step() -> None:
        assert room.table.game is not None
        if room.table.game.turn == 0:
            await move_here(room, host, f"h-{room.table.game.moves}")
        else:
            await manager.clock.advance(1)  # type: ignore[attr-defined]  # the bot's delay passes
            await asyncio.sleep(0.01)

    while room.table.game is not None and room.table.game.moves == 0:
        await one_step()
    _, token = await room.join("Nima", 1)  # asks for the bot's seat mid-round
    assert token is not None
    await sock.say({"type": "approve_seat", "seat": 1})
    assert room.table.seats[1].is_bot  # it passes when the next round is dealt
    while room.table.game is not None and room.table.game.round == 1:  # round one to its end, here
        await one_step()
    assert not room.table.seats[1].is_bot
    handed_at = room.table.last_move_at
    there.clock.t = manager.clock.t + 0.05  # type: ignore[attr-defined]  # `there` hears of it just after
    await there.catch_up()
    assert not there.table.seats[1].is_bot
    # Not since `there` loaded the room (long before): since the hand-over, as `there` learned it (a reload
    # cannot tell when a seat changed hands, so the moment it is learned: never earlier than it happened).
    assert there.presence.watch_from < handed_at
    assert there.presence.away(there.table)[1] == there.clock.now() >= handed_at


async def test_notices_are_read_strictly(manager: RoomManager, elsewhere: RoomManager) -> None:
    """Whoever can publish on Redis cannot make watchers be refused, chat as a seat, or stall the table."""
    here, there, _ = await started(manager, elsewhere)
    listener = FakeSocket(there)
    await listener.say({"type": "hello"})
    listener.drain()
    crowd = {"process": "forger", "seats": [0], "spectators": 10_000}
    there.follower.on_notice(Notice(there.code, "presence", there.table.version, crowd))
    assert there.presence.spectator_count() == 1
    assert peers.here_said({**crowd, "seats": [7]}, there.table, max_spectators=50) is None
    assert peers.here_said({**crowd, "spectators": 1, "askers": [7]}, there.table, max_spectators=50) is None
    assert (
        peers.here_said({**crowd, "spectators": 1, "askers": ["1"]}, there.table, max_spectators=50) is None
    )
    long_line = {"seat": 0, "name": "Host", "text": "x" * 3031, "at": "2026-01-01T00:00:00.000Z"}
    bidi = {**long_line, "text": "hi \u202e there"}
    other_name = {**long_line, "text": "hello", "name": "Someone"}
    for line in (long_line, bidi, other_name, {"seat": "0"}):
        there.follower.on_notice(Notice(there.code, "chat", there.table.version, line))
    assert listener.drain() == []
    fine = {**long_line, "text": "hello"}
    there.follower.on_notice(Notice(there.code, "chat", there.table.version, fine))
    assert [m["text"] for m in listener.drain()] == ["hello"]
    assert peers.heartbeat({"process": "p", "tables": "nope"}) is None


async def test_bad_hellos_cost_a_cheap_read_and_close_the_socket_after_a_few(
    manager: RoomManager, elsewhere: RoomManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    here, there, _ = await started(manager, elsewhere)
    loads: list[str] = []
    real_load = Store.load_table

    async def counted(store: Store, code: str) -> Any:
        loads.append(code)
        return await real_load(store, code)

    monkeypatch.setattr(Store, "load_table", counted)
    sock = FakeSocket(there)
    for attempt in range(BAD_HELLOS):
        assert codes(await sock.say({"type": "hello", "token": f"wrong-{attempt}"})) == ["bad_token"]
    assert loads == []  # no table was reloaded for a bad token
    assert sock.conn.close_code == 1008


async def test_a_future_version_reads_the_store_once_per_version(
    manager: RoomManager, elsewhere: RoomManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    here, there, tokens = await started(manager, elsewhere)
    reads: list[str] = []
    for name in ("tail", "load_table", "version_of"):  # every way a room reads its table
        real = getattr(Store, name)

        async def counted(store: Store, code: str, *, _real: Any = real, **kw: Any) -> Any:
            reads.append(code)
            return await _real(store, code, **kw)

        monkeypatch.setattr(Store, name, counted)
    assert there.table.game is not None
    sock = FakeSocket(there)
    await sock.say({"type": "hello", "token": token_to_act(there, tokens)})
    reads.clear()
    move = {"type": "draw", "source": "stock"}
    for n in range(20):
        out = await sock.say({"type": "action", "id": f"f-{n}", "version": 10_000 + n, "action": move})
        assert codes(out) == ["stale_version"]
    assert len(reads) <= 1


async def test_a_hint_is_searched_once_per_seat_and_version(
    manager: RoomManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.rooms import talk

    searches: list[int] = []
    real = talk.best_move

    def counted(game: Any, seat: int, **kwargs: Any) -> Any:
        searches.append(seat)
        return real(game, seat, **kwargs)

    monkeypatch.setattr(talk, "best_move", counted)
    room, host = await manager.create(name="Host", seat_count=2, bots=[], options={"hints": True})
    _, guest = await room.join("Guest")
    assert guest is not None
    host_sock = FakeSocket(room)
    await host_sock.say({"type": "hello", "token": host})
    await host_sock.say({"type": "start"})
    assert room.table.game is not None
    sock = FakeSocket(room)
    await sock.say({"type": "hello", "token": [host, guest][room.table.game.turn]})
    before = [(await sock.say({"type": "hint"}))[0] for _ in range(10)]  # before the draw: which pile
    assert before[0]["type"] == "hint" and "draw" in before[0] and all(a == before[0] for a in before)
    assert len(searches) == 1
    draw = {"type": "action", "id": "d", "action": {"type": "draw", "source": "stock"}}
    assert (await sock.say(draw))[0]["type"] == "ack"
    answers = [(await sock.say({"type": "hint"}))[0] for _ in range(10)]
    assert answers[0]["type"] == "hint" and all(a == answers[0] for a in answers)
    assert "draw" not in answers[0]
    assert len(searches) == 2


def test_a_notice_is_read_strictly_and_checked_against_its_signature() -> None:
    from app.rooms.broadcast import decode_notice, encode_notice

    notice = Notice("ROOM", "state", 7, {"a": 1})
    assert decode_notice(encode_notice(notice, "p1")) == ("p1", notice)
    assert decode_notice(encode_notice(notice, "p1", b"k"), b"k") == ("p1", notice)
    for bad in ("nope", "[]", '{"from": "p", "room": "R", "kind": "state", "version": "7", "payload": {}}'):
        with pytest.raises(ValueError):
            decode_notice(bad)
    with pytest.raises(ValueError):
        decode_notice(encode_notice(notice, "p1"), b"k")  # unsigned, where notices must be signed
    with pytest.raises(ValueError):
        decode_notice(encode_notice(notice, "p1", b"other"), b"k")


async def test_a_move_at_the_stores_version_is_made_on_a_cache_one_behind(
    manager: RoomManager, elsewhere: RoomManager
) -> None:
    """A process that already read the store at its cache's version, then fell one behind (another process
    moved, its notice not here yet), still makes a move sent against the store's version: the move is not
    refused as stale for a version that is the table's current one."""
    here, there, tokens = await started(manager, elsewhere)
    mover = FakeSocket(there)
    await mover.say({"type": "hello", "token": token_to_act(there, tokens)})  # `there` read the store
    ack = await move_here(here, token_to_act(here, tokens), "m-1")  # a draw: the same seat moves on
    assert there.table.version == ack["version"] - 1
    assert here.table.game is not None
    move = action_to_dict(choose_action(here.table.game, here.table.game.turn, "normal", 1))
    mover.drain()
    out = await mover.say({"type": "action", "id": "m-2", "version": ack["version"], "action": move})
    assert [m["type"] for m in out if m["type"] in ("ack", "error")] == ["ack"], out
