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
everyone is at the table a second with the clock still and then while hours pass at once, nor while a person
plays); one "an hour left" for each turn still unplayed in its last hour, none for a turn whose deadline
passed while no process ran.

A turn is left to run out only while its person has missed fewer than ``MISSED_TURNS`` - 1 turns in a row:
one more would give their seat to a bot (``commands.missed_turn``, tested in tests/rooms), whose turns are
played at once and never notified. After every turn the store is checked against the test's own game: whose
turn it is; its deadline, the pace after the turn's start, which is the discard's stamp (between its sending
and its ack) or the server's (between the clock's move and the move seen in the store); and every seat a
person's, with the turns missed in a row that the test counts (a run-out adds one, a move of one's own clears
them). At the end the game is over, the stored log replays to the stored game, every acknowledged move is in
it at its version, and the server played exactly the turns left to run out, once each.

A failure's message shows what the last turns did: the room as stored after each, and each move logged with
its stamp (the clock of the process that made it) next to the test's clock."""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC
from pathlib import Path

import httpx
import pytest
from sqlalchemy import text

from app.engine import Draw, GameState, action_from_dict, action_to_dict, apply, replay
from app.engine.bots import choose_action
from app.store import Store
from app.table.schedule import MISSED_TURNS
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
SLACK = 0.05  # seconds: a stamp and the test's clock read the same clock, a few µs apart
AT_TABLE = 0.75  # seconds at the table after the clock moved: a heartbeat of every process, then looks
# What the test reads of the store (besides the game): the turn notifications' claims, the room and its
# seats after every turn, and the log's moves with their stamps (a failure's message).
CLAIMS = "select last_turn_key, last_reminder_key from push_subscriptions"
ROOM = (  # the room and its seats, one row a seat
    "select r.version, r.turn_seat, r.due_at, s.seat_index, s.is_bot, s.missed from rooms r"
    " join seats s on s.room_code = r.code where r.code = :c order by s.seat_index"
)
MOVES = (
    "select a.seq, a.seat, a.action, a.client_id, a.version, a.created_at from actions a"
    " join games g on g.id = a.game_id where g.public_id = :g order by a.seq"
)


class SimClock:
    """The processes' clock: the real time moved on by the seconds written in ``CLOCK_OFFSET_FILE`` (only
    ever forward, and written whole: a process never reads half a number)."""

    def __init__(self, path: Path) -> None:
        self.path, self.offset = path, 0.0
        self.moved = time.monotonic()  # when the file was last written
        self.moved_to = self.began = time.time()  # the hours a failure's message shows count from here
        path.write_text("0")

    def hours(self, when: float) -> str:
        """``when`` (a time on the processes' clock) as hours since the test began (failure messages)."""
        return f"{(when - self.began) / HOUR:.4f}h"

    def now(self) -> float:
        return time.time() + self.offset

    def to(self, when: float) -> None:
        self.offset = max(self.offset, when - time.time())
        part = self.path.with_suffix(".part")
        part.write_text(repr(self.offset))
        os.replace(part, self.path)
        self.moved = time.monotonic()
        self.moved_to = self.now()  # no process's clock reads this late before the move (to a few µs)

    async def seen(self) -> None:
        """Until every process reads the clock as moved (each reads the file at most every 50 ms): a move
        stamped before would begin the next turn hours early."""
        await asyncio.sleep(max(0.0, self.moved + READ_EVERY - time.monotonic()))


@dataclass(frozen=True)
class Stored:
    """The room as the store holds it: its version, whose turn, the turn's deadline (the processes' clock),
    and each seat: (index, a bot's?, turns missed in a row)."""

    version: int
    turn: int | None
    due: float | None
    seats: list[tuple[int, bool, int]]


@dataclass(frozen=True)
class Step:
    """A turn as a failure's message tells it: how it went, the room as stored after it, the test's clock
    then, and the last move it made (seq)."""

    what: str
    room: Stored
    at: float
    last: int


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
    missed: dict[int, int] = field(default_factory=lambda: {0: 0, 1: 0, 2: 0})  # seat -> turns in a row
    began: tuple[float, float] = (0.0, 0.0)  # the turn under way began between these (the processes' clock)
    steps: list[Step] = field(default_factory=list)  # every turn, for a failure's message

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
        """What the store says of the turn and of the last turns notified, what the last turns did, and the
        processes' last log lines (for a failure's message)."""
        async with self.store.engine.connect() as conn:
            subs = (await conn.execute(text(CLAIMS))).all()
        logs = [
            f"app{index}.log:\n  "
            + "\n  ".join(self.cluster.log(index).read_text(errors="replace").splitlines()[-12:])
            for index in range(3)
        ]
        arrived = [self.arrived(seat) for seat in range(3)]
        now = Step(f"turn {self.turns} (under way)", await self.room(), self.clock.now(), 10**6)
        return "\n".join(
            [
                f"turn {self.turns} at {self.clock.hours(self.clock.now())}, claims {subs}, up {self.up}",
                f"arrived {arrived}, expected {self.titles}",
                await self.history(now),
                *logs,
            ]
        )

    async def history(self, *more: Step) -> str:
        """The last turns, each with the room as stored after it and each move it logged, with its stamp
        (the clock of the process that made it) and how far that was from the test's clock then (a fraction
        of a second; a process a move behind would be hours off)."""
        async with self.store.engine.connect() as conn:
            rows = (await conn.execute(text(MOVES), {"g": self.game_id})).all()
        steps = [*self.steps, *more]
        lines = [f"missed in a row, as the test counts: {self.missed}; the last turns:"]
        for index in range(max(0, len(steps) - 15), len(steps)):
            step, after = steps[index], steps[index - 1].last if index else 0
            moves = []
            for seq, seat, action, client, version, at in rows:
                if after < seq <= step.last:
                    stamp = (at if at.tzinfo else at.replace(tzinfo=UTC)).timestamp()
                    by = "server" if client is None else f"acked v{self.acked.get(client)}"
                    moves.append(
                        f"#{seq} seat {seat} {action['type']} v{version} ({by})"
                        f" at {self.clock.hours(stamp)} [{stamp - step.at:+.2f} s]"
                    )
            room = step.room
            due = "-" if room.due is None else self.clock.hours(room.due)
            seats = " ".join(f"{i}:{'bot' if bot else 'person'}/missed {n}" for i, bot, n in room.seats)
            lines.append(
                f"{step.what} | v{room.version} turn {room.turn} due {due} [{seats}]"
                f" | clock {self.clock.hours(step.at)} | moves: {'; '.join(moves)}"
            )
        return "\n".join(lines)

    async def room(self) -> Stored:
        async with self.store.engine.connect() as conn:
            rows = (await conn.execute(text(ROOM), {"c": self.code})).all()
        version, turn, due = rows[0][:3]
        seats = [(index, bot, missed) for *_, index, bot, missed in rows]
        return Stored(version, turn, None if due is None else due.timestamp(), seats)

    async def done(self, what: str, state: GameState) -> None:
        """The turn is over (``what`` says how it went): the store agrees with the test's game: whose turn
        it is, when it began (its deadline is that and the pace), and every seat a person's who missed the
        turns in a row the test counted."""
        room = await self.room()
        self.steps.append(Step(what, room, self.clock.now(), state.moves))
        assert room.seats == [(seat, False, self.missed[seat]) for seat in range(3)], await self.history()
        if state.is_over:
            assert room.due is None and room.turn is None, await self.history()
            return
        assert room.turn == state.turn, await self.history()
        low, high = self.began
        assert room.due is not None and low - SLACK <= room.due - PACE * HOUR <= high + SLACK, (
            f"the turn began between {self.clock.hours(low)} and {self.clock.hours(high)}: "
            + await self.history()
        )

    def check_told(self) -> None:
        for seat, titles in self.titles.items():
            assert self.arrived(seat) == titles, (seat, self.turns)
        assert self.service.refused == []

    async def server_played(self, state: GameState) -> tuple[int, GameState]:
        """The stored game once the server has played what is left of the turn under way in ``state`` (its
        draw, if the person has not drawn, then its discard) and counted the turn as missed: a write of its
        own just after the discard, waited for (a cheap read of the room) so that no move of the next
        person's comes between."""
        deadline = time.monotonic() + WAIT
        end = state.moves + (1 if state.phase == "discard" else 2)
        self.missed[state.turn] += 1  # the server plays their turn: one more missed in a row
        while (await self.room()).seats[state.turn][2] != self.missed[state.turn]:
            assert time.monotonic() < deadline, f"no server move after move {state.moves}: {self.missed}"
            await asyncio.sleep(0.01)
        self.began = (self.clock.moved_to, self.clock.now())
        version, stored = await stored_game(self.store, self.game_id)
        assert stored.moves >= end, (stored.moves, end)
        self.by_server.extend(range(state.moves + 1, end + 1))
        return version, stored

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
        sent = self.clock.now()
        answer = await client.act(action_to_dict(action), version, action_id)
        assert answer["type"] == "ack", answer
        assert answer["version"] > version
        self.acked[action_id] = answer["version"]
        self.missed[state.turn] = 0  # a move of their own
        if not isinstance(action, Draw):
            self.began = (sent, self.clock.now())
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
    begun = clock.now()  # the first turn began a moment ago (the game's start, on the processes' clock)
    version, state = await stored_game(store, game.game_id)
    seat = state.turn
    started_at = version
    version, state = await game.move(clients[seat], state, version)
    assert version == started_at + 1, "the first move is the one after the game's start"
    await asyncio.sleep(1.0)  # every process has looked, the turn a second old: their sockets are open
    game.check_told()
    assert service.received == []
    # Hours pass at once while everyone is at the table: every process goes on counting the sockets the others
    # hold (it measures their silence on a clock no test moves), so nobody is told it is their turn.
    clock.to(begun + 3 * HOUR)
    await asyncio.sleep(AT_TABLE)
    game.check_told()
    assert service.received == []
    for client in clients:
        await client.close()
    await game.told(seat, TURN)  # away now, and on turn
    # Nobody comes back: the last hour of the turn, then its end, on every process at once.
    clock.to(begun + (PACE - 0.5) * HOUR)
    await game.told(seat, REMINDER)
    clock.to(begun + PACE * HOUR + 60)
    version, state = await game.server_played(state)
    await game.done(f"turn 0 seat {seat}: drew on process {seat}, then ran out", state)

    stopped = killed = False
    while not state.is_over:
        game.turns += 1
        seat, begun = state.turn, clock.now()
        clock.to(begun + 3 * HOUR)  # hours later, nobody having come
        await game.told(seat, TURN)
        may_miss = game.missed[seat] < MISSED_TURNS - 1  # one more missed would give the seat to a bot
        if not killed and state.round >= 7 and may_miss:
            # Every process dies; the deadline passes while none runs; one comes back and plays the turn.
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
            await game.done(f"turn {game.turns} seat {seat}: every process killed, ran out on 0", state)
            continue
        if game.turns % 5 == 0 and may_miss:  # left to run out: reminded, then one process of three plays it
            clock.to(begun + (PACE - 0.5) * HOUR)
            await game.told(seat, REMINDER)
            clock.to(begun + PACE * HOUR + 60)
            version, state = await game.server_played(state)
            await game.done(f"turn {game.turns} seat {seat}: ran out (up {game.up})", state)
            continue
        if game.turns % 5 == 3:  # they come back only in the turn's last hour, reminded
            clock.to(begun + (PACE - 0.5) * HOUR)
            await game.told(seat, REMINDER)
        process = game.up[game.turns % len(game.up)]
        how = f"played on process {process}" + (" after the reminder" if game.turns % 5 == 3 else "")
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
            how += f", SIGTERMed after the draw, discarded on process {game.up[0]}"
        version, state = await game.move(client, state, version)
        await client.close()
        assert len(game.arrived(seat)) == len(game.titles[seat]), "nothing while they were at the table"
        await game.done(f"turn {game.turns} seat {seat}: {how}", state)

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
