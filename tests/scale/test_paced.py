"""A three-player table at 24 hours a turn played to its end on real processes (issue 35): three
``python -m app`` processes behind Caddy, with Redis and PostgreSQL, whose clocks a file moves on
(``CLOCK_OFFSET_FILE``) so that the hours of a turn pass at once, and the test push service.

Nobody is connected between moves: each person opens a socket (on one process or another) when their device
says it is their turn, plays the turn (draw, then discard or go out) and goes; some come back only after the
turn's last reminder; some turns are left to run out, and exactly one of the three processes plays them.
Mid-game, the process a person plays through is stopped as a deployment does (SIGTERM: the socket is told to
reconnect, and the person finishes the turn through another), and later every process is SIGKILLed while a
turn's deadline passes: a process started afterwards finds the table in the store and plays that turn.

Every notification that arrives is asserted, in order, on each device: one "your turn" per turn of a person,
whichever process looks first, never while their socket is open on any process (not at the game's start, when
everyone is at the table a second with the clock still, nor while a person plays); one "an hour left"
for each turn still unplayed in its last hour, none for a turn whose deadline passed while no process ran.
At the end the game is over, the stored log replays to the stored game, every acknowledged move is in it at
its version, and the server played exactly the turns left to run out, once each.

The clock is never moved while a person is at the table: a process measures its peers' silence on its clock,
so a move of more than 1.5 s makes it forget, until their next heartbeat, the sockets they hold."""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
from sqlalchemy import text

from app.engine import Draw, GameState, action_from_dict, action_to_dict, apply, replay
from app.engine.bots import choose_action
from app.store import Store
from tests.api.wsclient import Client, create_room, join_room, stored_game
from tests.push_service import PushService, push_service
from tests.reads import list_actions

from .cluster import Cluster, running_cluster

pytestmark = [pytest.mark.scale, pytest.mark.postgres, pytest.mark.xdist_group("scale")]

HOUR = 3600.0
PACE = 24  # hours a turn may take
TURN = "Your turn at Ann’s table"
REMINDER = "An hour left for your turn at Ann’s table"
READ_EVERY = 0.06  # seconds: a process reads CLOCK_OFFSET_FILE at most every 50 ms (OffsetClock)
WAIT = 20.0  # longest wait for a notification or a server move (a process starting on a loaded machine)


class SimClock:
    """The processes' clock: the real time moved on by the seconds written in ``CLOCK_OFFSET_FILE`` (only
    ever forward, and written whole: a process never reads half a number)."""

    def __init__(self, path: Path) -> None:
        self.path, self.offset = path, 0.0
        self.moved = time.monotonic()  # when the file was last written
        path.write_text("0")

    def now(self) -> float:
        return time.time() + self.offset

    def to(self, when: float) -> None:
        self.offset = max(self.offset, when - time.time())
        part = self.path.with_suffix(".part")
        part.write_text(repr(self.offset))
        os.replace(part, self.path)
        self.moved = time.monotonic()

    async def seen(self) -> None:
        """Until every process reads the clock as moved (each reads the file at most every 50 ms): a move
        stamped before would begin the next turn hours early."""
        await asyncio.sleep(max(0.0, self.moved + READ_EVERY - time.monotonic()))


@dataclass
class Paced:
    """The table, and what the test knows it should have seen."""

    cluster: Cluster
    store: Store
    service: PushService
    clock: SimClock
    code: str
    game_id: str
    tokens: dict[int, str]
    titles: dict[int, list[str]] = field(default_factory=lambda: {0: [], 1: [], 2: []})  # seat -> expected
    acked: dict[str, int] = field(default_factory=dict)  # action id -> the version its ack carried
    by_server: list[int] = field(default_factory=list)  # the moves (seq) of the turns that ran out
    up: list[int] = field(default_factory=lambda: [0, 1, 2])  # the processes running
    starting: list[asyncio.Task[None]] = field(default_factory=list)
    turns: int = 0

    def arrived(self, seat: int) -> list[str]:
        return [n.payload["title"] for n in self.service.at(f"seat-{seat}")]

    async def told(self, seat: int, title: str) -> None:
        """``title`` arrives at ``seat``'s device; every device has had exactly what it should, in order."""
        self.titles[seat].append(title)
        deadline = time.monotonic() + WAIT
        while len(self.arrived(seat)) < len(self.titles[seat]):
            if time.monotonic() > deadline:
                raise AssertionError(f"{title!r} never came to seat {seat}: {await self.why()}")
            await asyncio.sleep(0.005)
        self.check_told()

    async def why(self) -> str:
        """What the store says of the turn and of the last turns notified (for a failure's message)."""
        async with self.store.engine.connect() as conn:
            rooms = (await conn.execute(text("select due_at, turn_seat, version from rooms"))).all()
            subs = (
                await conn.execute(text("select last_turn_key, last_reminder_key from push_subscriptions"))
            ).all()
        return (
            f"turn {self.turns}, clock {self.clock.now()}, rooms {rooms}, claims {subs}, up {self.up}, "
            + (f"arrived {[self.arrived(seat) for seat in range(3)]}, expected {self.titles}")
        )

    def check_told(self) -> None:
        for seat, titles in self.titles.items():
            assert self.arrived(seat) == titles, (seat, self.turns)
        assert self.service.refused == []

    async def server_played(self, state: GameState) -> tuple[int, GameState]:
        """The stored game once the server has played what is left of the turn under way in ``state`` (its
        draw, if the person has not drawn, then its discard)."""
        deadline = time.monotonic() + WAIT
        end = state.moves + (1 if state.phase == "discard" else 2)
        while True:
            version, stored = await stored_game(self.store, self.game_id)
            if stored.moves >= end:
                self.by_server.extend(range(state.moves + 1, end + 1))
                return version, stored
            assert time.monotonic() < deadline, f"no server move after move {state.moves}"
            await asyncio.sleep(0.01)

    async def connect(self, seat: int, process: int) -> Client:
        client = await Client.connect(self.cluster.direct(process), self.code)
        assert (await client.hello(self.tokens[seat]))["seat"] == seat
        return client

    async def move(self, client: Client, state: GameState, version: int) -> tuple[int, GameState]:
        """The person at ``client`` plays what their strategy picks (the hard bot's: it goes out whenever it
        can); the version acknowledged and the game after it."""
        action = choose_action(state, state.turn, "hard", seed=state.moves)
        action_id = f"{state.turn}-{state.moves}-{uuid.uuid4().hex[:6]}"
        if not isinstance(action, Draw):  # a discard begins the next turn, on the process's clock
            await self.clock.seen()
        answer = await client.act(action_to_dict(action), version, action_id)
        assert answer["type"] == "ack", answer
        assert answer["version"] > version
        self.acked[action_id] = answer["version"]
        return answer["version"], apply(state, state.turn, action)[0]

    def restart(self, process: int) -> None:
        """Start ``process`` again in the background; it plays its part once it is ready."""

        async def back() -> None:
            await asyncio.to_thread(self.cluster.restart, process)
            self.up.append(process)

        self.starting.append(asyncio.create_task(back()))


async def test_a_three_player_table_at_24_hours_a_turn_is_played_to_its_end_on_three_processes(
    tmp_path: Path,
) -> None:
    with push_service() as service:
        clock = SimClock(tmp_path / "clock-offset")
        env = {
            "CLOCK_OFFSET_FILE": str(clock.path),
            "PACE_WAKE_SECONDS": "0.05",
            "PUSH_ALLOWED_HOSTS": f"127.0.0.1:{service.port}",
        }
        async with running_cluster(tmp_path, processes=3, **env) as (cluster, store):
            game = await open_table(cluster, store, service, clock)
            try:
                await play_to_the_end(game)
            finally:  # no process may start after the cluster stops
                await asyncio.gather(*game.starting, return_exceptions=True)


async def open_table(cluster: Cluster, store: Store, service: PushService, clock: SimClock) -> Paced:
    """Ann's table, three seats at 24 hours a turn, every person's device subscribed."""
    made = await create_room(cluster.base, "Ann", seats=3, options={"pace": PACE})
    code, tokens = made["code"], {0: made["token"]}
    for name in ("Bob", "Cyd"):
        joined = await join_room(cluster.base, code, name)
        tokens[joined["seat"]] = joined["token"]
    async with httpx.AsyncClient(base_url=cluster.base) as http:
        for seat, token in tokens.items():
            body = {
                "token": token,
                "device": f"phone-of-seat-{seat}",
                "subscription": service.subscription(f"seat-{seat}"),
            }
            answer = await http.post(f"/api/rooms/{code}/push", json=body)
            assert answer.status_code == 204, answer.text
    return Paced(cluster, store, service, clock, code, "", tokens)


async def play_to_the_end(game: Paced) -> None:
    """The whole game, turn by turn (the module's docstring)."""
    cluster, store, service, clock = game.cluster, game.store, game.service, game.clock
    # Everyone is at the table at the start, each through another process; the first person draws.
    clients = [await game.connect(seat, seat) for seat in range(3)]
    await clients[0].send({"type": "start"})
    started = await clients[0].until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")
    game.game_id = started["room"]["game_id"]
    version, state = await stored_game(store, game.game_id)
    seat = state.turn
    version, state = await game.move(clients[seat], state, version)
    await asyncio.sleep(1.0)  # every process has looked, the turn a second old: their sockets are open
    game.check_told()
    assert service.received == []
    for client in clients:
        await client.close()
    await game.told(seat, TURN)  # away now, and on turn
    begun = clock.now()  # (the turn began a moment ago, on the processes' clock)
    # Nobody comes back: the last hour of the turn, then its end, on every process at once.
    clock.to(begun + (PACE - 0.5) * HOUR)
    await game.told(seat, REMINDER)
    clock.to(begun + PACE * HOUR + 60)
    version, state = await game.server_played(state)

    stopped = killed = False
    while not state.is_over:
        game.turns += 1
        seat, begun = state.turn, clock.now()
        clock.to(begun + 3 * HOUR)  # hours later, nobody having come
        await game.told(seat, TURN)
        if not killed and state.round >= 7:  # every process dies; the deadline passes; one comes back
            await asyncio.gather(*game.starting)
            for process in game.up:
                cluster.kill(process)
            game.up = []
            clock.to(begun + PACE * HOUR + 60)
            await asyncio.to_thread(cluster.restart, 0)
            game.up = [0]
            version, state = await game.server_played(state)
            for process in (1, 2):
                game.restart(process)
            killed = True
            continue
        if game.turns % 5 == 0:  # left to run out: reminded, then the server plays it (one process of three)
            clock.to(begun + (PACE - 0.5) * HOUR)
            await game.told(seat, REMINDER)
            clock.to(begun + PACE * HOUR + 60)
            version, state = await game.server_played(state)
            continue
        if game.turns % 5 == 3:  # they come back only in the turn's last hour, reminded
            clock.to(begun + (PACE - 0.5) * HOUR)
            await game.told(seat, REMINDER)
        process = game.up[game.turns % len(game.up)]
        client = await game.connect(seat, process)
        version, state = await game.move(client, state, version)
        if not stopped and state.round >= 4 and len(game.up) == 3:
            # Their process is stopped as a deployment does: told to reconnect, they finish elsewhere.
            assert cluster.terminate(process) == 0
            await asyncio.wait_for(client.closed.wait(), 10)
            assert any(m["type"] == "restarting" for m in client.received)
            game.up.remove(process)
            game.restart(process)
            client = await game.connect(seat, game.up[0])
            stopped = True
        version, state = await game.move(client, state, version)
        await client.close()
        assert len(game.arrived(seat)) == len(game.titles[seat]), "nothing while they were at the table"

    await asyncio.gather(*game.starting)
    assert stopped and killed
    assert sorted(game.up) == [0, 1, 2]
    await asyncio.sleep(0.5)  # ten looks of each process: a notification sent twice would be in by now
    game.check_told()
    await check_log(game)


async def check_log(game: Paced) -> None:
    """The game is over; its log replays to the stored game; every acknowledged move is in it at its
    version; the server played exactly the turns left to run out, whole and once; the turns add up."""
    _, stored = await stored_game(game.store, game.game_id)
    assert stored.is_over
    actions = await list_actions(game.store, game.game_id)
    assert [a.seq for a in actions] == list(range(1, stored.moves + 1))
    versions = [a.version for a in actions]
    assert versions == sorted(set(versions)), "one move per version"
    moves = [(a.seat, action_from_dict(a.action)) for a in actions]
    assert replay(3, stored.options, stored.seed, moves) == stored, "the log replays to the stored game"
    logged = {a.client_id: a.version for a in actions if a.client_id is not None}
    assert logged == game.acked, "every acknowledged move is stored, at its version, and no other"
    by_server = [a.seq for a in actions if a.client_id is None]
    assert by_server == game.by_server, "the server played the turns that ran out, once, and no other"
    draws = [a.seq for a in actions if isinstance(action_from_dict(a.action), Draw)]
    assert draws == list(range(1, stored.moves + 1, 2)), "every turn a draw, then one discard"
    turns = stored.moves // 2
    assert turns == game.turns + 1
    told = [title for titles in game.titles.values() for title in titles]
    assert told.count(TURN) == turns, 'one "your turn" per turn'
    assert game.service.received and all(n.payload["url"] == f"/r/{game.code}" for n in game.service.received)
