"""Soak: the real server under mixed play for a long run, and whether its memory settles (issue 39, point 6).

    python benchmarks/soak.py                              # 30 minutes, 20 tables, SQLite in a temporary dir
    python benchmarks/soak.py --minutes 2 --tables 5       # a quick run
    python benchmarks/soak.py --minutes 30 --postgres      # a fresh database at TEST_POSTGRES_URL
    python benchmarks/soak.py --minutes 8 --warmup 2 --trace-memory   # where the memory goes
    python benchmarks/soak.py --minutes 35 --probe-memory  # both rules' figures, and the server's heaps

Starts ``python -m app`` (``tests.server_process``; SQLite in a temporary directory unless ``--postgres``)
with the settings as shipped (message rate, chat, lobby and standings limits, the 700 ms bots, the 20 s pause
between rounds) but for the per-address limits on sockets, new sockets and new rooms, lifted as in
``benchmarks/ws_memory.py``, since every socket here comes from 127.0.0.1. Then, for ``--minutes``:

- ``--tables`` tables played at once, of two to four people, every other one with a bot too. Each person
  plays their own view at ``--think`` seconds a move (jittered ±50%), presses Continue between rounds, and
  at the end the host asks for a rematch, or (``--new-room`` of the time) the table opens a new room;
- ``--watchers`` watching sockets per table (a ``hello`` without a token);
- socket churn: every ``--churn-every`` seconds (jittered) ``--churn`` players and ``--churn`` watchers close
  their socket and open a new one 0.5-1 s later, a player saying ``hello`` with its token and the last
  version it holds and sending again, same id, a move it had not seen answered (as the browser does);
- now and then a chat line or a reaction (at most one per seat every 6 s: the limit is 5 per 10 s), and a REST
  read about every 2 s (a room, its games, the players' board, a name's record and games: well within the
  standings budget of 120 a minute).

Nothing should be refused: every ``error`` message, socket closed by the server, failed connect and REST
answer other than 200 (or 404 for a name with no record) counts as an unexpected error.

The server's resident memory (VmRSS) is read from /proc every second, and the rooms it holds in memory and
has evicted from its /metrics every 10 s. The growth is measured under two rules, both printed:

- **old rule**: after the warm-up (``--warmup`` minutes, at most a sixth of the run), the baseline is the
  median of the next minute;
- **new rule**: the baseline is the median of the minute from the first room evicted (not before the
  warm-up). Until then the rooms in memory only grow: a room stays ``ROOM_IDLE_SECONDS`` (ten minutes)
  after its last socket, and the soak's tables open new rooms from their first finished games, so the
  first leave about 14 minutes in (docs/benchmarks.md, "the soak, where the last megabytes go"); from then
  on about as many leave as open, and the engine's bounded caches are full long before. The rule gives a
  figure only when at least ``--least-measured`` minutes (15) lie between the end of its baseline minute and
  the start of the end's: in a 30-minute run the first eviction comes too late for that, so measure it with
  ``--minutes 35``.

Under both, the end is the median of the run's last minute (each window half the measured time when that is
under two minutes). Prints the median RSS per minute with the rooms in memory and evicted so far, for each
rule the growth (end - baseline) against the target (at most 5 MiB) and the least-squares slope since its
baseline in MiB/hour, and, at each baseline and at the end, what can be measured of where memory went: the
process's anonymous and file-backed resident pages, threads and open files (/proc), the server's /metrics
(tables and sockets in memory, rooms evicted, moves applied, errors answered by code, the collector's runs
by generation), and the database's size (SQLite: the file, its WAL and shared memory). Also: moves, games,
reconnects, chat, reads, move latency (sent to its ack) p50/p99, the server's CPU. Exits 1 if the server died
or an unexpected error came (not on the growth: read it).

``--probe-memory`` (opt-in; the app's code is not changed) starts the server with ``benchmarks/trace_site.py``
as its ``sitecustomize`` as ``--trace-memory`` does, but traces nothing: at each baseline and at the end
(SIGUSR1) it writes the server's own figures, printed at the end: Python's allocator (``pymalloc``: its
1 MiB arenas, and the bytes of its blocks in use), glibc's heap (``mallinfo2``: in use, free, mapped),
SQLite's heap and, for every open sqlite3 connection, its page cache, schema and prepared statements
(``sqlite3_db_status``), the live objects by type, and how full each ``lru_cache`` is. Counting the objects
takes the server a moment at each mark; the run is otherwise at full speed.

``--trace-memory`` (opt-in; the app's code is not changed) starts the server with ``benchmarks/trace_site.py``
as its ``sitecustomize`` (in a temporary directory put first on its ``PYTHONPATH``): ``tracemalloc`` with
``--trace-frames`` frames, and a snapshot on SIGUSR1. The soak signals it at the baseline and at the end, and
prints the 15 places that grew most (by line, then by traceback, in KiB), the live objects whose count grew
most, and what tracemalloc cannot see: SQLite's own heap (its page caches) and glibc's heap in use and free.
Tracing slows the server and about doubles its memory, and each snapshot briefly takes more: read the RSS
figures of such a run as a shape only.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import os
import random
import shutil
import signal
import statistics
import sys
import tempfile
import time
import tracemalloc
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import websockets

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.load import choose, cpu_seconds, create_database, drop_database, percentile  # noqa: E402
from tests.api.wsclient import free_port  # noqa: E402
from tests.security.deflate_flood import rss_kib  # noqa: E402
from tests.server_process import server_env, start, stop_process, wait_ready  # noqa: E402

EXPECTED_ERRORS: frozenset[str] = frozenset()  # within the limits, the server refuses nothing
PEOPLE = (2, 3, 4, 2)  # people at table i: PEOPLE[i % 4]; even tables add a bot
BOT_LEVELS = ("easy", "normal", "hard")
NAMES = ("Ann", "Bob", "Cyd", "Dee")
REACTIONS = ("👍", "👏", "😂", "😮")
CHAT_GAP_S = 6.0  # one line or reaction per seat at most every 6 s (CHAT_MAX_PER_10S: 5)
READ_EVERY_S = 2.0
SAMPLE_EVERY_S = 1.0
RESEND_S = 10.0  # a start, continue or rematch not answered within this is sent again
PROC_FIELDS = ("VmRSS", "RssAnon", "RssFile", "RssShmem", "VmHWM", "Threads")
TRACE_TOP = 15  # places shown by --trace-memory
TRACE_WAIT_S = 300.0  # a snapshot of a traced server takes seconds; this long means it never came
METRICS_EVERY_S = 10.0  # rooms in memory and evicted, read from /metrics this often


@dataclass
class Totals:
    moves: int = 0  # moves acknowledged (a state carrying their id, or an ack after a resend)
    resent: int = 0  # moves sent again, same id, after a reconnect
    games: int = 0  # games played to their end
    rematches: int = 0
    rooms: int = 0
    player_reconnects: int = 0
    watcher_reconnects: int = 0
    watcher_messages: int = 0
    chats: int = 0
    reads: int = 0
    move_ms: list[float] = field(default_factory=list)
    errors: collections.Counter[str] = field(default_factory=collections.Counter)
    examples: list[str] = field(default_factory=list)

    def error(self, kind: str, detail: str) -> None:
        self.errors[kind] += 1
        if len(self.examples) < 20:
            self.examples.append(f"{time.strftime('%H:%M:%S')} {detail}")


class Soak:
    def __init__(self, base: str, args: argparse.Namespace) -> None:
        self.base, self.args = base, args
        self.ws = base.replace("http", "ws", 1) + "/ws/"
        self.rng = random.Random(args.seed)
        self.totals = Totals()
        self.stop = asyncio.Event()
        self.tables = [Table(self, index) for index in range(args.tables)]

    def think(self, scale: float = 1.0) -> float:
        return self.args.think * scale * self.rng.uniform(0.5, 1.5)

    async def churn(self) -> None:
        """Every few seconds, some players and some watchers drop their socket and come back."""
        while not self.stop.is_set():
            await asyncio.sleep(self.args.churn_every * self.rng.uniform(0.5, 1.5))
            for kind in ("players", "watchers"):
                live = [
                    s for t in self.tables for s in getattr(t, kind) if s.sock is not None and not s.closing
                ]
                chosen = self.rng.sample(live, min(self.args.churn, len(live)))
                await asyncio.gather(*(s.drop() for s in chosen))

    async def reader(self, http: httpx.AsyncClient) -> None:
        """A REST read about every 2 s: a room, its games, the players' board, a name's record or games."""
        while not self.stop.is_set():
            await asyncio.sleep(READ_EVERY_S * self.rng.uniform(0.5, 1.5))
            codes = [t.code for t in self.tables if t.code]
            if not codes:
                continue
            code = self.rng.choice(codes)
            name = self.rng.choice(NAMES) + str(self.rng.randrange(self.args.tables))
            path = self.rng.choice(
                [
                    f"/api/rooms/{code}",
                    f"/api/rooms/{code}/games",
                    "/api/leaderboard",
                    f"/api/players/{name}",
                    f"/api/players/{name}/games",
                ]
            )
            try:
                response = await http.get(path)
            except httpx.HTTPError as exc:
                self.totals.error("http failed", f"GET {path}: {exc!r}")
                continue
            self.totals.reads += 1
            # 404: a name with no counted game (every seat here joins from one address, so none counts)
            if response.status_code != 200 and not (
                response.status_code == 404 and path.startswith("/api/players/")
            ):
                self.totals.error(
                    f"http {response.status_code}",
                    f"GET {path}: {response.status_code} {response.text[:120]}",
                )

    async def close_all(self) -> None:
        socks = [s for t in self.tables for s in (*t.players, *t.watchers)]
        await asyncio.gather(*(s.drop() for s in socks), return_exceptions=True)


class Table:
    """One table after another at the same place: a room, played game after game (rematch) until it opens
    a new room."""

    def __init__(self, soak: Soak, index: int) -> None:
        self.soak, self.index = soak, index
        self.people = PEOPLE[index % len(PEOPLE)]
        self.bots = [BOT_LEVELS[(index // 2) % len(BOT_LEVELS)]] if index % 2 == 0 else []
        self.code = ""
        self.players: list[Player] = []
        self.watchers: list[Watcher] = []
        self.leave = asyncio.Event()  # this room is done with: its sockets go, a new room comes
        self.then: dict[str, str] = {}  # game id seen finished -> what comes next: "rematch" or "new"
        self.leaving: asyncio.Task[None] | None = None

    async def run(self, http: httpx.AsyncClient) -> None:
        await asyncio.sleep(self.soak.rng.uniform(0, 3))  # the tables do not all open in one instant
        while not self.soak.stop.is_set():
            try:
                seats = await self.open_room(http)
            except (httpx.HTTPError, KeyError, ValueError) as exc:
                self.soak.totals.error("open room", f"table {self.index}: {exc!r}")
                await asyncio.sleep(5)
                continue
            self.leave = asyncio.Event()
            self.players = [Player(self, seat, token) for seat, token in seats]
            self.watchers = [Watcher(self) for _ in range(self.soak.args.watchers)]
            await asyncio.gather(*(s.run() for s in (*self.players, *self.watchers)))

    async def open_room(self, http: httpx.AsyncClient) -> list[tuple[int, str]]:
        body = {"name": f"{NAMES[0]}{self.index}", "seats": self.people + len(self.bots), "bots": self.bots}
        made = await http.post("/api/rooms", json=body)
        made.raise_for_status()
        room = made.json()
        seats = [(room["seat"], room["token"])]
        for k in range(1, self.people):
            joined = await http.post(
                f"/api/rooms/{room['code']}/join", json={"name": f"{NAMES[k]}{self.index}"}
            )
            joined.raise_for_status()
            seats.append((joined.json()["seat"], joined.json()["token"]))
        self.code = room["code"]
        self.soak.totals.rooms += 1
        return seats

    def finished(self, game_id: str) -> str:
        """Game ``game_id`` has ended: what comes next, "rematch" or "new" (drawn once per game)."""
        if game_id not in self.then:
            self.soak.totals.games += 1
            self.then[game_id] = "new" if self.soak.rng.random() < self.soak.args.new_room else "rematch"
        return self.then[game_id]

    def close(self) -> None:
        """This room is done with: every socket of it goes (the table then opens a new room)."""
        if not self.leave.is_set():
            self.leave.set()
            socks = (*self.players, *self.watchers)
            self.leaving = asyncio.get_running_loop().create_task(self.drop_all(socks))

    async def drop_all(self, socks: tuple[Socket, ...]) -> None:
        await asyncio.gather(*(s.drop() for s in socks))


class Socket:
    """A socket that comes back: dropped by the churn (or the server), it opens again 0.5-1 s later."""

    def __init__(self, table: Table) -> None:
        self.table, self.soak = table, table.soak
        self.sock: websockets.ClientConnection | None = None
        self.closing = False  # this side closes it (churn, a new room, the run's end)
        self.version: int | None = None  # of the last state held

    def done(self) -> bool:
        return self.soak.stop.is_set() or self.table.leave.is_set()

    async def drop(self) -> None:
        sock = self.sock
        if sock is not None and not self.closing:
            self.closing = True
            with contextlib.suppress(Exception):
                await sock.close()

    async def run(self) -> None:
        while not self.done():
            sock = None
            try:
                async with websockets.connect(
                    self.soak.ws + self.table.code, max_size=2**22, open_timeout=30, close_timeout=10
                ) as sock:
                    self.sock = sock
                    if self.done():  # told to go while it was connecting
                        self.closing = True
                        await sock.close()
                        break
                    await self.greet(sock)
                    async for raw in sock:
                        await self.handle(json.loads(raw))
            except websockets.ConnectionClosed:
                pass
            except (OSError, TimeoutError, websockets.InvalidHandshake) as exc:
                if not self.done():
                    self.soak.totals.error("connect failed", f"{self.table.code}: {exc!r}")
            finally:
                self.sock = None
            if sock is not None and not self.closing and not self.done():
                self.soak.totals.error(
                    f"closed {sock.close_code}", f"{self.table.code}: closed by the server: {sock.close_code}"
                )
            self.closing = False
            if self.done():
                return
            self.reconnected()
            await asyncio.sleep(self.soak.rng.uniform(0.5, 1.0))

    async def greet(self, sock: websockets.ClientConnection) -> None:
        raise NotImplementedError

    async def handle(self, msg: dict[str, Any]) -> None:
        raise NotImplementedError

    def reconnected(self) -> None:
        raise NotImplementedError


class Watcher(Socket):
    async def greet(self, sock: websockets.ClientConnection) -> None:
        hello: dict[str, Any] = {"type": "hello"}
        if self.version is not None:
            hello["last_version"] = self.version
        await sock.send(json.dumps(hello))

    async def handle(self, msg: dict[str, Any]) -> None:
        self.soak.totals.watcher_messages += 1
        kind = msg["type"]
        if kind == "state":
            self.version = max(self.version or 0, msg["version"])
        elif kind == "error" and msg["code"] not in EXPECTED_ERRORS:
            self.soak.totals.error(f"error {msg['code']}", f"{self.table.code}/watcher: {msg}")
        elif kind == "welcome" and msg["seat"] is not None:
            self.soak.totals.error("welcome", f"{self.table.code}/watcher: a seat? {msg}")

    def reconnected(self) -> None:
        self.soak.totals.watcher_reconnects += 1


class Player(Socket):
    """A person at the table: plays its view after a think, presses Continue between rounds, chats now and
    then; as host, starts the game and then asks for rematches."""

    def __init__(self, table: Table, seat: int, token: str) -> None:
        super().__init__(table)
        self.seat, self.token = seat, token
        self.room: dict[str, Any] | None = None
        self.game: dict[str, Any] | None = None
        self.synced = False  # this socket holds the table's current version (after its hello)
        self.pending: dict[str, Any] | None = None  # a move sent and not yet answered
        self.sent_at = 0.0
        self.changed = asyncio.Event()
        self.said: dict[tuple[str, Any], float] = {}  # (what, about what) -> when: start, continue, rematch
        self.break_end = 0.0  # monotonic: the pause between rounds ends at the latest
        self.break_seen: str | None = None
        self.last_chat = 0.0
        self.lobby_since = 0.0

    async def run(self) -> None:
        brain = asyncio.create_task(self.brain())
        try:
            await super().run()
        finally:
            brain.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await brain

    def reconnected(self) -> None:
        self.soak.totals.player_reconnects += 1

    async def greet(self, sock: websockets.ClientConnection) -> None:
        self.synced = False
        hello: dict[str, Any] = {"type": "hello", "token": self.token, "acks": "in_state"}
        if self.version is not None:
            hello["last_version"] = self.version
        await sock.send(json.dumps(hello))

    async def handle(self, msg: dict[str, Any]) -> None:
        kind = msg["type"]
        if kind == "state":
            if self.version is not None and msg["version"] < self.version:
                return
            self.version, self.game = msg["version"], msg["game"]
            self.take(msg["room"])
            if msg.get("ack") is not None:
                self.answered(msg["ack"], timed=True)
            if not self.synced:
                await self.sync()
        elif kind == "presence":
            self.take(msg["room"])
            if not self.synced and msg["version"] == self.version:  # no state follows: ours is current
                await self.sync()
        elif kind == "ack":
            self.answered(msg["id"], timed=False)
        elif kind == "welcome":
            if msg["seat"] != self.seat:
                self.soak.totals.error("welcome", f"{self.table.code}/{self.seat}: seat now {msg['seat']}")
        elif kind == "error":
            if msg["code"] not in EXPECTED_ERRORS:
                self.soak.totals.error(f"error {msg['code']}", f"{self.table.code}/{self.seat}: {msg}")
            if self.pending is not None and msg.get("id") == self.pending["id"]:
                self.pending = None
            if self.sock is not None:
                await self.sock.send('{"type": "resync"}')
        elif kind == "restarting":
            self.soak.totals.error("restarting", f"{self.table.code}/{self.seat}: restarting")
        self.changed.set()

    def take(self, room: dict[str, Any]) -> None:
        self.room = room
        until = room.get("break_until")
        if until and until != self.break_seen:
            self.break_seen = until
            now = datetime.fromisoformat(room.get("server_time") or until)
            self.break_end = time.monotonic() + (datetime.fromisoformat(until) - now).total_seconds()
        if room["status"] == "lobby" and not self.lobby_since:
            self.lobby_since = time.monotonic()

    async def sync(self) -> None:
        """The hello is answered: send again, same id, a move not seen answered before the drop."""
        self.synced = True
        if self.pending is not None and self.sock is not None:
            self.soak.totals.resent += 1
            self.sent_at = time.perf_counter()
            await self.sock.send(json.dumps(self.pending))

    def answered(self, action_id: str, *, timed: bool) -> None:
        if self.pending is None or self.pending["id"] != action_id:
            return
        if timed:
            self.soak.totals.move_ms.append((time.perf_counter() - self.sent_at) * 1000)
        self.soak.totals.moves += 1
        self.pending = None

    async def brain(self) -> None:
        while not self.done():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), 1.0)  # and once a second: a pause's countdown
            self.changed.clear()
            step = self.decide()
            if step is None:
                continue
            delay, message, key = step
            version = self.version
            await asyncio.sleep(delay)
            sock = self.sock
            if self.version != version or self.pending is not None or not self.synced or sock is None:
                self.changed.set()  # the table moved meanwhile: decide again
                continue
            if message["type"] == "action":
                message = {**message, "id": uuid.uuid4().hex, "version": self.version}
                self.pending, self.sent_at = message, time.perf_counter()
            with contextlib.suppress(websockets.ConnectionClosed):
                await sock.send(json.dumps(message))
                self.said[key] = time.monotonic()
                if message["type"] == "rematch":
                    self.soak.totals.rematches += 1
                if message["type"] == "action" and self.rng_chat():
                    await sock.send(json.dumps(self.chat_line()))

    def fresh(self, key: tuple[str, Any]) -> bool:
        """Not sent in the last RESEND_S seconds (one lost with its socket is sent again)."""
        return time.monotonic() - self.said.get(key, -RESEND_S) >= RESEND_S

    def decide(self) -> tuple[float, dict[str, Any], tuple[str, Any]] | None:
        """What to send next, after how long, and what it is about; None: nothing now."""
        room, game, soak = self.room, self.game, self.soak
        if room is None or not self.synced or self.pending is not None or self.done():
            return None
        host = room["host_seat"] == self.seat
        if room["status"] == "lobby":
            everyone = all(s["connected"] or s["bot"] for s in room["seats"])
            waited = time.monotonic() - self.lobby_since > 15
            if host and (everyone or waited) and self.fresh(("start", self.version)):
                return soak.think(), {"type": "start"}, ("start", self.version)
            return None
        self.lobby_since = 0.0
        if room["status"] == "finished" or (game is not None and game["phase"] == "game_over"):
            game_id = room.get("game_id")
            if host and game_id and self.table.finished(game_id) == "new":
                self.table.close()
            elif host and game_id and self.fresh(("rematch", game_id)):
                return soak.think(4), {"type": "rematch"}, ("rematch", game_id)
            return None
        if game is None:
            return None
        if room.get("break_until") and time.monotonic() < self.break_end:
            key = ("continue", room["break_until"])
            if self.seat not in room["continued"] and self.fresh(key):
                return soak.think(4), {"type": "continue"}, key  # reads the round's results first
            return None  # waiting for the others to press Continue (or the countdown)
        if game["turn"] == self.seat and (move := choose(game)) is not None:
            return soak.think(), {"type": "action", "action": move}, ("action", self.version)
        return None

    def rng_chat(self) -> bool:
        now = time.monotonic()
        if now - self.last_chat < CHAT_GAP_S or self.soak.rng.random() >= self.soak.args.chat:
            return False
        self.last_chat = now
        self.soak.totals.chats += 1
        return True

    def chat_line(self) -> dict[str, Any]:
        if self.soak.rng.random() < 0.5:
            return {"type": "chat", "text": f"nice one {self.soak.rng.randrange(1000)}"}
        return {"type": "react", "emoji": self.soak.rng.choice(REACTIONS)}


# ----- measuring -------------------------------------------------------------------------------------------


def proc_status(pid: int) -> dict[str, float]:
    """The process's memory (MiB), threads and open files, from /proc."""
    found: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in PROC_FIELDS:
            number = int(value.split()[0])
            found[name] = number if name == "Threads" else number / 1024
    found["open files"] = len(os.listdir(f"/proc/{pid}/fd"))
    return found


def parse_metrics(text: str) -> dict[str, float]:
    """The server's /metrics, but for histogram buckets and sums: the gauges, the counters, the collector's
    runs by generation."""
    found: dict[str, float] = {}
    for line in text.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        name, value = line.rsplit(" ", 1)
        if name.split("{", 1)[0].endswith(("_sum", "_bucket")):
            continue
        if name.startswith("threethirteen_action_latency") or name.startswith("threethirteen_event_loop"):
            continue
        found[name.removeprefix("threethirteen_")] = float(value)
    applied = [v for k, v in found.items() if k.startswith("actions_applied_total")]
    for key in [k for k in found if k.startswith("actions_applied_total")]:
        del found[key]
    found["actions_applied_total"] = sum(applied)
    return found


async def database_files(database: str) -> dict[str, float]:
    """The database's size in MiB: SQLite's file, WAL and shared memory; PostgreSQL's pg_database_size."""
    if database.startswith("postgresql"):
        import asyncpg
        from sqlalchemy.engine import make_url

        dsn = make_url(database).set(drivername="postgresql").render_as_string(hide_password=False)
        conn = await asyncpg.connect(dsn)
        try:
            size = await conn.fetchval("SELECT pg_database_size(current_database())")
        finally:
            await conn.close()
        return {"database": size / 2**20}
    path = Path(database.split("///", 1)[1])
    return {
        f"database{suffix or ' file'}": (Path(f"{path}{suffix}").stat().st_size / 2**20)
        if Path(f"{path}{suffix}").exists()
        else 0.0
        for suffix in ("", "-wal", "-shm")
    }


async def snapshot(http: httpx.AsyncClient, pid: int, database: str) -> dict[str, float]:
    figures = proc_status(pid)
    try:
        figures.update(parse_metrics((await http.get("/metrics")).text))
    except httpx.HTTPError as exc:
        figures["metrics unreadable"] = 1
        print(f"/metrics: {exc!r}", file=sys.stderr)
    figures.update(await database_files(database))
    return figures


async def count_rooms(http: httpx.AsyncClient, elapsed: float, measured: Measured) -> None:
    """Note the rooms in memory and the rooms evicted so far (/metrics), and the first eviction's time."""
    try:
        found = parse_metrics((await http.get("/metrics")).text)
    except httpx.HTTPError:
        return
    evicted = found.get("rooms_evicted_total", 0.0)
    measured.rooms.append((elapsed, found.get("open_tables", 0.0), evicted))
    if measured.settled is None and evicted > 0:
        measured.settled = elapsed


def settled_baseline(args: argparse.Namespace, measured: Measured) -> float | None:
    """The new rule's baseline window starts here (seconds into the run): once the rooms in memory reach
    their steady state (the first room is evicted: from then on about as many leave as open), and not before
    the warm-up. None: not yet, or too late to leave ``--least-measured`` minutes measured."""
    if measured.settled is None:
        return None
    warmup, window = windows(args)
    start = max(warmup, measured.settled)
    return start if args.minutes * 60 - window - (start + window) >= args.least_measured * 60 else None


def slope_per_hour(points: list[tuple[float, float]]) -> float:
    """Least squares through (seconds, MiB): MiB per hour."""
    if len(points) < 2:
        return float("nan")
    mean_x = statistics.fmean(x for x, _ in points)
    mean_y = statistics.fmean(y for _, y in points)
    var = sum((x - mean_x) ** 2 for x, _ in points)
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / var * 3600 if var else 0.0


@dataclass
class Measured:
    samples: list[tuple[float, float]] = field(default_factory=list)  # (seconds into the run, VmRSS MiB)
    at_baseline: dict[str, float] = field(default_factory=dict)
    at_end: dict[str, float] = field(default_factory=dict)
    at_settled: dict[str, float] = field(default_factory=dict)
    cpu_baseline: float = 0.0
    cpu_end: float = 0.0
    died: str = ""
    # (seconds into the run, rooms in memory, rooms evicted so far), from /metrics every METRICS_EVERY_S
    rooms: list[tuple[float, float, float]] = field(default_factory=list)
    settled: float | None = None  # seconds into the run of the first eviction (the room count's steady state)
    marks: list[str] = field(default_factory=list)  # what each --probe/--trace-memory figure was taken at


async def run(args: argparse.Namespace, database: str, log: Path) -> tuple[Soak, Measured]:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = server_env(
        database,
        port,
        LOG_LEVEL="warning",
        MAX_CONNECTS_PER_SECOND="100000",
        MAX_SOCKETS_PER_ADDRESS="100000",
        MAX_ROOMS_PER_ADDRESS="100000",
    )
    for shipped in ("BOT_DELAY_MS", "ROUND_BREAK_SECONDS", "MAX_MESSAGES_PER_SECOND"):
        del env[shipped]  # server_env's test values: here the defaults, as shipped
    traces = None
    if args.trace_memory or args.probe_memory:
        traces = trace_directory(log.parent, env, args.trace_frames, probe=not args.trace_memory)
    proc = start([sys.executable, "-m", "app"], env, log)
    measured = Measured()
    try:
        wait_ready(proc, base, log)
        soak = Soak(base, args)
        total = args.minutes * 60
        warmup, window = windows(args)
        began = time.monotonic()
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:
            work = [asyncio.create_task(t.run(http)) for t in soak.tables]
            work += [asyncio.create_task(soak.churn()), asyncio.create_task(soak.reader(http))]
            baseline_at = warmup + window
            rooms_at = 0.0
            while (elapsed := time.monotonic() - began) < total:
                if proc.poll() is not None:
                    measured.died = f"the server exited with {proc.returncode} after {elapsed:.0f} s"
                    break
                measured.samples.append((elapsed, rss_kib(proc.pid)["VmRSS"] / 1024))
                if elapsed >= rooms_at:
                    rooms_at = elapsed + METRICS_EVERY_S
                    await count_rooms(http, elapsed, measured)
                if not measured.at_baseline and elapsed >= baseline_at:
                    measured.at_baseline = await snapshot(http, proc.pid, database)
                    measured.cpu_baseline = cpu_seconds(proc.pid)
                    if traces is not None:
                        await trace_snapshot(proc.pid, traces, measured, "old-rule baseline")
                settled_at = settled_baseline(args, measured)
                if not measured.at_settled and settled_at is not None and elapsed >= settled_at + window:
                    measured.at_settled = await snapshot(http, proc.pid, database)
                    if traces is not None:
                        await trace_snapshot(proc.pid, traces, measured, "new-rule baseline")
                next_at = began + (len(measured.samples)) * SAMPLE_EVERY_S
                await asyncio.sleep(max(0.0, next_at - time.monotonic()))
            if not measured.died:
                measured.at_end = await snapshot(http, proc.pid, database)
                measured.cpu_end = cpu_seconds(proc.pid)
                if traces is not None:
                    await trace_snapshot(proc.pid, traces, measured, "end")
                    if args.trace_memory:
                        await trace_census(proc.pid, traces)
            soak.stop.set()
            await soak.close_all()
            _, late = await asyncio.wait(work, timeout=30)
            for task in late:
                task.cancel()
            await asyncio.gather(*work, return_exceptions=True)
        if proc.poll() is not None and not measured.died:
            measured.died = f"the server exited with {proc.returncode}"
    finally:
        stop_process(proc)
    return soak, measured


# ----- --trace-memory -------------------------------------------------------------------------------------


def trace_directory(tmp: Path, env: dict[str, str], frames: int, *, probe: bool = False) -> Path:
    """Set ``env`` up so that the server traces its memory (``benchmarks/trace_site.py`` as its
    ``sitecustomize``, first on its ``PYTHONPATH``), or with ``probe`` only measures it (nothing traced);
    returns the directory its snapshots go to."""
    site, out = tmp / "trace-site", tmp / "traces"
    site.mkdir()
    out.mkdir()
    shutil.copyfile(ROOT / "benchmarks" / "trace_site.py", site / "sitecustomize.py")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(site), env.get("PYTHONPATH", "")) if p)
    env["SOAK_TRACE_DIR"] = str(out)
    env["SOAK_TRACE_FRAMES"] = str(frames)
    if probe:
        env["SOAK_TRACE_MODE"] = "probe"
    return out


async def trace_snapshot(pid: int, traces: Path, measured: Measured, mark: str) -> None:
    """Ask the server for its next snapshot (SIGUSR1), taken at ``mark``, and wait until it is written."""
    number = len(measured.marks)
    measured.marks.append(mark)
    await signal_and_wait(pid, signal.SIGUSR1, traces / f"figures-{number}.json")


async def trace_census(pid: int, traces: Path) -> None:
    """Ask the server for its census of the cyclic garbage (SIGUSR2; it frees it) and wait for it."""
    await signal_and_wait(pid, signal.SIGUSR2, traces / "census.json")


async def signal_and_wait(pid: int, signum: int, written: Path) -> None:
    os.kill(pid, signum)
    deadline = time.monotonic() + TRACE_WAIT_S
    while not written.exists():
        if time.monotonic() > deadline:
            raise RuntimeError(f"no {written.name} from the server within {TRACE_WAIT_S:.0f} s")
        await asyncio.sleep(0.2)


FIGURE_KEYS = (
    "traced",
    "frozen_objects",
    "objects_total",
    "allocated_blocks",
    "tracemalloc_overhead",
    "sqlite_memory_used",
    "sqlite_memory_highwater",
    "sqlite_connections",
    "sqlite_cache_used",
    "sqlite_schema_used",
    "sqlite_stmt_used",
    "malloc_arena",
    "malloc_in_use",
    "malloc_free",
    "malloc_mmapped",
    "pymalloc_arenas",
    "pymalloc_total",
    "pymalloc_in_use",
)
# counts, not bytes
COUNTS = ("frozen_objects", "objects_total", "allocated_blocks", "pymalloc_arenas", "sqlite_connections")


def figures_report(traces: Path, marks: list[str]) -> list[str]:
    """The server's own figures at each mark (--probe-memory or --trace-memory): its heaps, Python's
    allocator, its objects; the caches' fill; and the types whose count grew most from the first mark and
    from the new-rule baseline to the end."""
    figures = [json.loads((traces / f"figures-{n}.json").read_text()) for n in range(len(marks))]
    if len(figures) < 2:
        return ["no figures from the server (it died, or the run ended before the baseline)"]
    lines = ["the server's figures (KiB, but counts), at: " + " -> ".join(marks)]
    for key in FIGURE_KEYS:
        if all(key in f for f in figures) and any(f[key] for f in figures):
            unit = 1 if key in COUNTS else 1024
            values = [f[key] / unit for f in figures]
            shown = " -> ".join(f"{v:10.0f}" for v in values)
            change = f"{values[-1] - values[0]:+.0f}; {values[-1] - values[-2]:+.0f}"
            lines.append(f"  {key:26} {shown}  ({change})")
    caches = [f.get("caches", {}) for f in figures]
    if caches[-1]:
        lines.append("the app's lru caches (bounded by design), entries at each mark / most:")
        for name, (_, most) in sorted(caches[-1].items()):
            filled = " -> ".join(f"{c.get(name, [0])[0]:6d}" for c in caches)
            lines.append(f"  {name:48} {filled} / {most}")
    for first in sorted({0, len(figures) - 2}):
        counts = [figures[first].get("objects", {}), figures[-1].get("objects", {})]
        grown = sorted(((counts[1].get(k, 0) - counts[0].get(k, 0), k) for k in counts[1]), reverse=True)
        lines.append(f"live objects whose count grew most, {marks[first]} -> end:")
        for diff, name in grown[:TRACE_TOP]:
            lines.append(f"  {diff:+8d}  {name} ({counts[0].get(name, 0)} -> {counts[1][name]})")
    return lines


def trace_report(traces: Path, marks: list[str]) -> list[str]:
    """The growth from the baseline's snapshot to the end's: by line, by traceback, objects by type, and the
    heaps tracemalloc does not see."""
    paths = [traces / f"snapshot-{n}.pickle" for n in (0, len(marks) - 1)]
    if len(marks) < 2 or not all(p.exists() for p in paths):
        return ["--trace-memory: no snapshots (the server died, or the run ended before the baseline)"]
    ignore = [
        tracemalloc.Filter(False, tracemalloc.__file__),
        tracemalloc.Filter(False, "<frozen importlib._bootstrap>"),
        tracemalloc.Filter(False, "<frozen importlib._bootstrap_external>"),
        tracemalloc.Filter(False, "<unknown>"),
    ]
    first, last = (tracemalloc.Snapshot.load(str(p)).filter_traces(ignore) for p in paths)
    lines = [f"--trace-memory: traced growth, {marks[0]} -> {marks[-1]}"]
    for key_type in ("lineno", "traceback"):
        stats = last.compare_to(first, key_type)
        total = sum(s.size_diff for s in stats) / 1024
        lines.append(f"top {TRACE_TOP} growth by {key_type} (all traced: {total:+.0f} KiB):")
        for stat in stats[:TRACE_TOP]:
            frames = list(reversed(stat.traceback))  # the most recent (the allocation) first
            where = f"{frames[0].filename.removeprefix(str(ROOT) + '/')}:{frames[0].lineno}"
            lines.append(
                f"  {stat.size_diff / 1024:+9.1f} KiB  {stat.size / 1024:9.1f} KiB now  "
                f"{stat.count_diff:+7d} blocks  {where}"
            )
            if key_type == "traceback":  # the project's own frames, innermost first
                ours = [f for f in frames if str(ROOT) in f.filename and "/.venv/" not in f.filename]
                for frame in ours[:6]:
                    lines.append(f"        {frame.filename.removeprefix(str(ROOT) + '/')}:{frame.lineno}")
    return lines + figures_report(traces, marks) + census_report(traces / "census.json")


def census_report(path: Path) -> list[str]:
    """The server's census at the end: the cyclic garbage its collector had kept (frozen), and what it is."""
    if not path.exists():
        return ["no census of the cyclic garbage"]
    census = json.loads(path.read_text())
    freed = (census["traced_before"] - census["traced_after"]) / 1024
    lines = [
        f"cyclic garbage at the end (a full collection, frozen objects included): "
        f"{census['freed_objects']} objects freed of {census['frozen_before']} frozen; "
        f"traced memory freed: {freed:.0f} KiB; by what (count):",
    ]
    for what, count in list(census["by_detail"].items())[:25]:
        lines.append(f"    {count:8d}  {what}")
    lines.append("what each cache held at the end (entries; KiB traced, freed by emptying it):")
    for name, (entries, size) in sorted(census.get("caches_held", {}).items(), key=lambda kv: -kv[1][1]):
        lines.append(f"  {name:48} {entries:7d}  {size / 1024:9.1f} KiB")
    return lines


def windows(args: argparse.Namespace) -> tuple[float, float]:
    """(warm-up, baseline window) in seconds: the warm-up at most a sixth of the run, the windows a minute, or
    half what is left after the warm-up when that is shorter."""
    total = args.minutes * 60
    warmup = min(args.warmup * 60, total / 6)
    return warmup, min(60.0, (total - warmup) / 2)


def report(args: argparse.Namespace, soak: Soak, measured: Measured, database: str, log: Path) -> int:
    totals, samples = soak.totals, measured.samples
    people = sum(t.people for t in soak.tables)
    bots = sum(len(t.bots) for t in soak.tables)
    print(
        f"soak: {args.minutes:g} min, {args.tables} tables ({people} people, {bots} bots), "
        f"{args.watchers * args.tables} watchers, think {args.think} s, churn {args.churn} players + "
        f"{args.churn} watchers every ~{args.churn_every:g} s; "
        f"{'PostgreSQL' if database.startswith('postgresql') else 'SQLite'}"
    )
    print("minute  median RSS (MiB)  rooms in memory (last read)  evicted so far")
    for minute in range(int(samples[-1][0] // 60) + 1 if samples else 0):
        values = [rss for t, rss in samples if minute * 60 <= t < (minute + 1) * 60]
        rooms = [(n, e) for t, n, e in measured.rooms if minute * 60 <= t < (minute + 1) * 60]
        if values:
            held = f"{rooms[-1][0]:8.0f}  {rooms[-1][1]:8.0f}" if rooms else ""
            print(f"{minute + 1:6d}  {statistics.median(values):8.1f}  {held}")
    warmup, window = windows(args)
    after = [(t, rss) for t, rss in samples if t >= warmup]
    first = [rss for t, rss in after if t < warmup + window]
    last = [rss for t, rss in samples if t >= samples[-1][0] - window] if samples else []
    ok = not measured.died and not totals.errors
    if first and last and not measured.died:
        baseline, final = statistics.median(first), statistics.median(last)
        growth = final - baseline
        print(
            f"old rule: warm-up {warmup / 60:.1f} min; baseline (median of {warmup / 60:.1f}-"
            f"{(warmup + window) / 60:.1f} min) {baseline:.1f} MiB; "
            f"end (median of the last {window / 60:.1f} min) {final:.1f} MiB; "
            f"peak {max(r for _, r in samples):.1f} MiB"
        )
        print(
            f"old rule: slope after the warm-up: {slope_per_hour(after):+.2f} MiB/hour "
            f"(least squares over {len(after)} samples)"
        )
        print(f"old rule: growth {growth:+.2f} MiB; growth <= 5 MiB: {'PASS' if growth <= 5 else 'FAIL'}")
        settled = settled_baseline(args, measured)
        if settled is not None:
            steady = [rss for t, rss in samples if settled <= t < settled + window]
            since = [(t, rss) for t, rss in samples if t >= settled]
            measured_min = (samples[-1][0] - window - settled - window) / 60
            steady_mib = statistics.median(steady)
            grown = final - steady_mib
            print(
                f"new rule: the first room evicted at {(measured.settled or 0) / 60:.1f} min (the rooms in "
                f"memory at their steady state); baseline (median of {settled / 60:.1f}-"
                f"{(settled + window) / 60:.1f} min) {steady_mib:.1f} MiB; {measured_min:.1f} min measured "
                f"to the end's minute; slope since: {slope_per_hour(since):+.2f} MiB/hour"
            )
            print(f"new rule: growth {grown:+.2f} MiB; growth <= 5 MiB: {'PASS' if grown <= 5 else 'FAIL'}")
        else:
            print(
                "new rule: no figure (no room evicted early enough to leave "
                f"{args.least_measured:g} minutes measured; first eviction: "
                f"{'none' if measured.settled is None else f'{measured.settled / 60:.1f} min'})"
            )
    else:
        print(f"no growth figure: {measured.died or 'too few samples'}")
    if measured.at_baseline and measured.at_end:
        marks = [("old-rule baseline", measured.at_baseline)]
        if measured.at_settled:
            marks.append(("new-rule baseline", measured.at_settled))
        marks.append(("end", measured.at_end))
        print(
            "where the memory is, at the " + " -> ".join(m for m, _ in marks) + " (MiB unless a count; "
            "growth from the first, and from the last baseline):"
        )
        keys = sorted(set().union(*(figures for _, figures in marks)), key=figure_order)
        for key in keys:
            values = [figures.get(key, 0.0) for _, figures in marks]
            shown = " -> ".join(f"{v:10.1f}" for v in values)
            print(f"  {key:42} {shown}  ({values[-1] - values[0]:+.1f}; {values[-1] - values[-2]:+.1f})")
        print("  Python objects: not measured (no endpoint of the server counts them)")
        seconds = max(1e-9, samples[-1][0] - warmup - window)
        cpu = measured.cpu_end - measured.cpu_baseline
        print(f"server CPU after the baseline: {cpu:.1f} s, {100 * cpu / seconds:.0f}% of a core")
    print(
        f"load: {totals.moves} moves ({totals.resent} sent again after a reconnect), {totals.games} games "
        f"({totals.rematches} rematches, {totals.rooms} rooms), reconnects: {totals.player_reconnects} "
        f"players, {totals.watcher_reconnects} watchers; {totals.watcher_messages} messages to watchers; "
        f"{totals.chats} chat lines and reactions; {totals.reads} REST reads"
    )
    print(
        f"move sent -> ack: p50 {percentile(totals.move_ms, 0.5):.1f} ms, "
        f"p99 {percentile(totals.move_ms, 0.99):.1f} ms (n={len(totals.move_ms)})"
    )
    logged = [line for line in log.read_text(errors="replace").splitlines() if line.strip()]
    print(f"server log (LOG_LEVEL=warning): {len(logged)} lines")
    for line in logged[:5]:
        print(f"  {line[:200]}")
    if measured.died:
        print(f"SERVER DIED: {measured.died}")
    print(
        f"unexpected errors: {sum(totals.errors.values())}"
        + "".join(f"; {k} {v}" for k, v in totals.errors.items())
    )
    for example in totals.examples[:10]:
        print(f"  {example[:300]}")
    return 0 if ok else 1


def figure_order(key: str) -> tuple[int, str]:
    order = ("Vm", "Rss", "Threads", "open", "open_", "rooms", "actions", "gc", "errors", "database")
    return next((i for i, prefix in enumerate(order) if key.startswith(prefix)), len(order)), key


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--tables", type=int, default=20, help="tables played at once")
    parser.add_argument("--watchers", type=int, default=2, help="watching sockets per table")
    parser.add_argument("--think", type=float, default=0.5, help="seconds before each move (jittered ±50%%)")
    parser.add_argument("--warmup", type=float, default=5, help="minutes, at most a sixth of the run")
    parser.add_argument(
        "--least-measured",
        type=float,
        default=15,
        help="minutes the new rule measures at least (its baseline's end to the end's minute)",
    )
    parser.add_argument("--churn", type=int, default=2, help="players (and watchers) dropped at each churn")
    parser.add_argument("--churn-every", type=float, default=5, help="seconds between churns (jittered)")
    parser.add_argument(
        "--chat", type=float, default=0.1, help="chance of a chat line or reaction after a move"
    )
    parser.add_argument(
        "--new-room", type=float, default=0.3, help="chance a finished table opens a new room"
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--postgres", action="store_true", help="a fresh database at TEST_POSTGRES_URL")
    parser.add_argument(
        "--trace-memory",
        action="store_true",
        help="tracemalloc snapshots of the server at the baseline and the end, and their difference",
    )
    parser.add_argument("--trace-frames", type=int, default=25, help="frames kept per traced allocation")
    parser.add_argument(
        "--probe-memory",
        action="store_true",
        help="the server's heaps and objects at each baseline and the end, nothing traced (full speed)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="soak-") as tmp:
        log = Path(tmp) / "server.log"
        if args.postgres:
            base_url = os.environ.get(
                "TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
            )
            database = asyncio.run(create_database(base_url))
        else:
            database = f"sqlite+aiosqlite:///{tmp}/soak.db"
        try:
            soak, measured = asyncio.run(run(args, database, log))
        finally:
            if args.postgres:
                asyncio.run(drop_database(base_url, database))
        code = report(args, soak, measured, database, log)
        if args.trace_memory:
            print("\n".join(trace_report(Path(tmp) / "traces", measured.marks)))
        elif args.probe_memory:
            print("\n".join(figures_report(Path(tmp) / "traces", measured.marks)))
    sys.exit(code)


if __name__ == "__main__":
    main()
