"""What a page that (re)connects is welcomed with comes from the store: the current round's moves (all of a
round at eight seats, the turn limit's 800 moves) and the table's recent chat lines and reactions, after a
restart and on another process, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from app.config import Settings
from app.engine.game import TURNS_PER_SEAT_LIMIT
from app.protocol import EventView, Welcome, encode, parse_client_message
from app.rooms import Broadcaster, Connection, Room, RoomManager
from app.rooms.feed import FEED_KINDS
from app.store import ChatBound, ChatRecord, Store, run_migrations
from app.table import AVATARS

from .fakes import FakeSocket, Linked, ManualClock, SharedButSilent

SEATS = 8
ROUND = 2 * TURNS_PER_SEAT_LIMIT * SEATS  # 800 moves: the turn limit ends the round with the last one
CHAT = [{"type": "chat", "text": f"line {i}"} for i in range(3)]


class Watcher(FakeSocket):
    """A spectator that keeps only the round's moves it saw live (a round's worth of states is large)."""

    def __init__(self, room: Room) -> None:
        super().__init__(room)
        self.moves: list[dict[str, Any]] = []

    def drain(self) -> list[dict[str, Any]]:
        out = [json.loads(text) for text in self.conn.drain()]
        for message in out:
            for event in message.get("events", ()) if message["type"] == "state" else ():
                if event["kind"] == "round_start":
                    self.moves = []
                elif event["kind"] in FEED_KINDS:
                    self.moves.append(event)
        return out


class Table:
    """Eight people at one table, a spectator who watched from the start, and the managers ("processes")
    made over its database."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.managers: list[tuple[RoomManager, Store]] = []
        self.code = ""
        self.tokens: list[str] = []
        self.players: list[FakeSocket] = []
        self.watcher: Watcher | None = None

    async def process(self, broadcaster: Broadcaster | None = None) -> RoomManager:
        store = Store(self.url)
        settings = Settings(_env_file=None, database_url=self.url, bot_delay_ms=700)  # type: ignore[call-arg]
        manager = RoomManager(store=store, settings=settings, clock=ManualClock(), broadcaster=broadcaster)
        self.managers.append((manager, store))
        return manager

    async def close(self, manager: RoomManager) -> None:
        store = next(s for m, s in self.managers if m is manager)
        self.managers = [(m, s) for m, s in self.managers if m is not manager]
        await manager.close()
        await store.close()

    async def seat_everyone(self, manager: RoomManager) -> Room:
        room, token = await manager.create(name="P0", seat_count=SEATS, bots=[], options={})
        self.code, self.tokens = room.code, [token]
        for i in range(1, SEATS):
            seat, token = await room.join(f"P{i}")
            assert seat == i and token
            self.tokens.append(token)
        self.players = [FakeSocket(room) for _ in range(SEATS)]
        for socket, token in zip(self.players, self.tokens, strict=True):
            await socket.say({"type": "hello", "token": token})
        self.watcher = Watcher(room)
        await self.watcher.say({"type": "hello"})
        await self.players[0].say({"type": "start"})
        return room

    async def play(self, room: Room, moves: int) -> None:
        """``moves`` moves of the round: each seat draws from the stock and throws the card it drew (nobody
        goes out, so only the turn limit ends the round)."""
        for _ in range(moves):
            game = room.table.game
            assert game is not None and room.table.playing is game
            if game.phase == "draw":
                action: dict[str, Any] = {"type": "draw", "source": "stock"}
            else:
                action = {"type": "discard", "card": str(game.drawn)}
            mover = self.players[game.turn]
            out = await mover.say(
                {"type": "action", "id": f"m-{game.moves}", "version": room.table.version, "action": action}
            )
            assert not [m for m in out if m["type"] == "error"], out
            for socket in self.players:
                socket.conn.drain()
            assert self.watcher is not None
            self.watcher.drain()

    async def welcome(self, manager: RoomManager, token: str | None = None) -> dict[str, Any]:
        room = await manager.get(self.code)
        assert room is not None
        hello: dict[str, Any] = {"type": "hello"} if token is None else {"type": "hello", "token": token}
        welcome = (await FakeSocket(room).say(hello))[0]
        assert welcome["type"] == "welcome"
        return welcome


@pytest.fixture
async def table(db_url: str) -> AsyncIterator[Table]:
    await run_migrations(db_url)
    made = Table(db_url)
    yield made
    for manager, store in made.managers:
        await manager.close()
        await store.close()


def seen(table: Table) -> list[dict[str, Any]]:
    assert table.watcher is not None
    return table.watcher.moves


def chat_of(welcome: dict[str, Any]) -> list[tuple[int, str, str, bool]]:
    return [(c["seat"], c["name"], c["text"], c.get("reaction", False)) for c in welcome.get("chat", [])]


SAID = [
    (0, "P0", "line 0", False),
    (0, "P0", "line 1", False),
    (1, "P1", "👍", True),
    (0, "P0", "line 2", False),
]


async def say_things(table: Table) -> None:
    await table.players[0].say(CHAT[0])
    await table.players[0].say(CHAT[1])
    await table.players[1].say({"type": "react", "emoji": "👍"})
    await table.players[0].say(CHAT[2])


async def test_a_welcome_holds_the_whole_round_at_eight_seats_and_the_turn_limit(table: Table) -> None:
    here = await table.process()
    room = await table.seat_everyone(here)
    await table.play(room, ROUND - 1)  # every move of the longest round but the one that ends it
    live = seen(table)
    assert len(live) >= ROUND - 1  # and the reshuffles of the stock
    assert [m["kind"] for m in live].count("draw") == ROUND // 2
    welcome = await table.welcome(here)
    assert welcome["moves"] == live
    assert (await table.welcome(here, table.tokens[3]))["moves"] == live  # a player's reload: the same
    # The moves are spliced into the welcome's text, each encoded once: exactly what the model writes.
    conn = Connection(max_queue=10)
    await room.handle(conn, parse_client_message('{"type": "hello"}'))
    model = Welcome(
        room=room.code, seat=None, you_are_host=False, moves=[EventView.model_validate(m) for m in live]
    )
    assert conn.drain()[0] == encode(model)
    await table.play(room, 1)  # the round ends: the next one has no move yet
    assert "moves" not in await table.welcome(here)


async def test_after_a_restart_the_welcome_has_the_rounds_moves_and_the_chat(table: Table) -> None:
    first = await table.process()
    room = await table.seat_everyone(first)
    await say_things(table)
    await table.play(room, ROUND - 1)
    live = seen(table)
    await table.close(first)  # the process stops; another starts over the same database
    again = await table.process()
    welcome = await table.welcome(again)
    assert welcome["moves"] == live
    assert chat_of(welcome) == SAID
    assert [c["at"] for c in welcome["chat"]] == sorted(c["at"] for c in welcome["chat"])


async def test_another_process_welcomes_with_the_rounds_moves_and_the_chat(table: Table) -> None:
    here = await table.process()
    room = await table.seat_everyone(here)
    # One process loaded the table before the round began (it follows the moves through the log), one
    # loads it half-way; neither hears a notice of the first one's.
    early = await table.process(SharedButSilent())
    assert await early.get(table.code) is not None
    await table.play(room, ROUND // 2)
    await say_things(table)
    # A change that is not a move: the first process's catch-up reloads the table (and its round's moves).
    await table.players[3].say({"type": "avatar", "avatar": AVATARS[0]})
    late = await table.process(SharedButSilent())
    assert await late.get(table.code) is not None
    await table.play(room, ROUND // 2 - 1)
    live = seen(table)
    for there in (early, late):
        welcome = await table.welcome(there, table.tokens[5])
        assert welcome["seat"] == 5
        assert welcome["moves"] == live
        assert chat_of(welcome) == SAID


async def test_a_line_said_on_another_process_is_in_the_welcome_here(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    near, far = Linked.link(2)
    here = await table.process(near)
    await table.seat_everyone(here)
    there = await table.process(far)
    room = await there.get(table.code)
    assert room is not None
    player = FakeSocket(room)
    await player.say({"type": "hello", "token": table.tokens[2]})
    reads = 0
    read = table.managers[0][1].recent_chat

    async def counted(code: str, bound: ChatBound) -> list[ChatRecord]:
        nonlocal reads
        reads += 1
        return await read(code, bound)

    monkeypatch.setattr(table.managers[0][1], "recent_chat", counted)
    assert (await player.say({"type": "chat", "text": "from there"}))[0]["text"] == "from there"
    assert chat_of(await table.welcome(here)) == [(2, "P2", "from there", False)]
    assert reads == 0  # here read its chat once, at the first welcome; the notice moved the copy


async def test_a_line_whose_notice_was_lost_is_read_once_the_room_resyncs(table: Table) -> None:
    here = await table.process(SharedButSilent())
    await table.seat_everyone(here)
    there = await table.process(SharedButSilent())
    room = await there.get(table.code)
    assert room is not None
    player = FakeSocket(room)
    await player.say({"type": "hello", "token": table.tokens[2]})
    await player.say({"type": "chat", "text": "from there"})  # its notice never reaches here
    here._resync(None)  # as when Redis comes back, or the room's channel was just joined
    assert chat_of(await table.welcome(here)) == [(2, "P2", "from there", False)]
