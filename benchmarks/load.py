"""Load benchmark: the real server (uvicorn) with N tables of 4 WebSocket clients playing whole games.

Prints action->ack and action->broadcast latency (p50/p95/p99), actions per second, the server's peak RSS,
errors, and checks that every acknowledged action is in the store and every game replays from
(seed, options, action log) to its stored state. In the same run, a bare WebSocket echo server on the same
machine is measured with the same sockets and message pattern, for the ratio.

    python benchmarks/load.py --tables 250 --think 1.0           # SQLite (default)
    python benchmarks/load.py --tables 250 --think 1.0 --postgres # PostgreSQL at TEST_POSTGRES_URL

Issue 27's runs (a window after a warm-up; a restart under load; watchers):

    python benchmarks/load.py --tables 250 --think 1 --warmup 20 --duration 60              # human pace
    python benchmarks/load.py --tables 250 --think 1 --restart-after 20 --duration 60       # reconnect storm
    python benchmarks/load.py --tables 250 --think 1 --watchers 16 --warmup 20 --duration 40  # watched site

Every run reports the **connect storm** at its start (all sockets connect at once to the running server):
how long each socket took to hold its table (its first state), the server's event-loop lag and collector
runs until the last one did, and the moves of the 30 s after. ``--restart-after S`` stops the server with
SIGTERM after S seconds and starts it again: every socket reconnects (with the browser's back-off), and the
same figures are reported from the moment the new process answered ``/healthz``. ``--watchers K`` adds K
watching sockets to every table (they only read). ``--warmup W`` starts the measured window W seconds
after the tables start (``--duration`` is the window's length).

``--think`` is each player's pause before a move (seconds, jittered ±50%); 0 plays as fast as the server
allows (a saturation run: latency is then queueing time). ``--crash-after S`` SIGKILLs the server after S
seconds, restarts it, and lets every client reconnect and finish. ``--duration S`` measures a steady-state
window of S seconds instead of whole games (whole games at human pace take about ten minutes).

Several processes (issue 13), always on PostgreSQL (a database of the run's own) and through Caddy:

    python benchmarks/load.py --processes 1 2 --tables 250 --think 0 --duration 20   # saturation
    python benchmarks/load.py --processes 1 2 --tables 250 --think 1 --duration 30   # latency at 1 s think
    python benchmarks/load.py --processes 3 --tables 100 --think 1 --duration 25 --kill-one-after 10

``--processes 1`` is today's single process (no Redis) behind the same Caddy; N > 1 adds a redis-server of
the run's own. Each value runs in turn in the same invocation, and the summary gives the ratios.
``--balance table round_robin`` names how Caddy spreads the sockets (tests/scale/cluster.py's ``caddyfile``):
``table`` (the default, as docker/Caddyfile) hashes a table's code so its sockets share one process;
``round_robin`` spreads them. Several values run each process count above one under each policy:

    python benchmarks/load.py --processes 1 2 --balance table round_robin --tables 250 --think 1 --duration 30

``--redis single cluster`` runs each configuration of more than one process on one redis-server and on a Redis
Cluster of three nodes (tests/scale/cluster.py's ``RedisCluster``; ``REDIS_URL=redis+cluster://``), and
reports Redis's CPU per committed move (the three nodes' CPU summed) with its ratio to the first Redis's:

    python benchmarks/load.py --processes 3 --redis single cluster --tables 100 --think 1 --duration 30

``--kill-one-after S`` SIGKILLs one process after S seconds; its sockets reconnect through Caddy (with the
browser's back-off) and the failover time (SIGKILL -> first state on the new socket) is reported.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import math
import os
import random
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.engine import action_from_dict, replay  # noqa: E402
from app.engine.game import GameState  # noqa: E402
from app.store.store import Store  # noqa: E402
from tests.reads import list_actions, load_game_state  # noqa: E402

CARD_ORDER = {"A": 1, "J": 11, "Q": 12, "K": 13}
BACKOFF_S = (0.3, 1.0, 2.0, 4.0, 8.0)
CONNECT_SPREAD_S = 1.0  # the sockets of the run's start connect within this many seconds
RESTART_RETRY_S = 0.5  # after `restarting`: every 0.5-1 s, as static/js/socket.js
PROFILE_OUT: list[str | None] = [None]  # --profile-out
ACKS_IN_STATE = [True]  # --acks: how the players' sockets take their acks (a server before it: "frame")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


@dataclass
class Stats:
    ack_ms: list[float] = field(default_factory=list)
    broadcast_ms: list[float] = field(default_factory=list)
    broadcast_at: list[tuple[float, float]] = field(default_factory=list)  # (seconds into the run, ms)
    broadcast_by_round: dict[int, list[float]] = field(default_factory=dict)  # round (1-11) -> ms
    actions: int = 0
    errors: list[str] = field(default_factory=list)
    reconnects: int = 0
    killed_at: float | None = None  # perf_counter of a --kill-one-after SIGKILL
    failover_ms: list[float] = field(default_factory=list)  # SIGKILL -> first state on the new socket
    generator_cpu: float = 0.0  # the load generator's own CPU seconds during the run
    server_cpu: float = 0.0  # the app processes' CPU seconds during the run (those alive at its end)
    other_cpu: dict[str, float] = field(default_factory=dict)  # the balancer's and Redis's CPU seconds
    postgres_cpu: float = 0.0  # every PostgreSQL process's CPU seconds (the server is shared by the run)
    machine_cpu: float = 0.0  # the whole machine's busy CPU seconds, every process on every core
    acked: dict[str, set[str]] = field(default_factory=dict)  # room code -> acknowledged action ids
    table_gaps: list[float] = field(default_factory=list)  # each table's median ms between its own moves
    codes: list[str] = field(default_factory=list)
    elapsed: float = 0.0
    peak_rss: float = 0.0
    window_end_rss: float = 0.0  # the app processes' RSS when the window ends, every socket still open
    stopped_early: bool = False
    server_notes: list[str] = field(default_factory=list)  # each app process's own figures (server_latency)
    window_start: float = math.inf  # perf_counter, set when the window opens: moves sent before it (the
    # warm-up's) are not measured (0.0 here counted the warm-up's acks, before 2026-12-05)
    storms: list[Storm] = field(default_factory=list)  # the connect at the start, and a restart's
    watcher_messages: int = 0
    profile: Counter[str] = field(default_factory=Counter)  # --profile: the server's busy samples by layer
    profile_note: str = ""


@dataclass
class Storm:
    """Every socket (re)connecting at once: from ``started`` (the run's start, or the restarted process
    answering /healthz) until each socket's first state."""

    name: str
    started: float
    sockets: int
    held_ms: dict[tuple[str, int], float] = field(default_factory=dict)  # (table, socket) -> ms
    ended: float | None = None
    server_note: str = ""  # the process's own figures over the storm (loop lag, collector)
    after_ms: list[float] = field(default_factory=list)  # broadcast latency of moves in the 30 s after

    def hold(self, key: tuple[str, int], now: float) -> None:
        if self.ended is None and now >= self.started and key not in self.held_ms:
            self.held_ms[key] = (now - self.started) * 1000


class Server:
    """The real server as a subprocess (``python -m app``), restartable."""

    def __init__(self, database_url: str, port: int, **extra: str) -> None:
        self.env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "PORT": str(port),
            "HOST": "127.0.0.1",
            "BOT_DELAY_MS": "0",
            "ROUND_BREAK_SECONDS": "0",  # no pause between rounds: the benchmark plays without reading
            "LOG_LEVEL": "warning",
            # a benchmark is one address with many sockets playing fast: lift the per-address limits
            "MAX_MESSAGES_PER_SECOND": "1000",
            "MAX_ROOMS_PER_ADDRESS": "100000",
            "MAX_SOCKETS_PER_ADDRESS": "100000",
            "MAX_CONNECTS_PER_SECOND": "100000",  # 1,000 sockets open at once at the start
            "LOBBY_MAX_PER_10S": "100000",
            **extra,
        }
        self.port = port
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "app"], env=self.env, cwd=ROOT)
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{self.port}/healthz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.05)
        raise RuntimeError("server did not start")

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def card_points(card: str) -> int:
    rank = card[:-1]
    if card == "JK":
        return 15
    return CARD_ORDER.get(rank, 10) if rank in CARD_ORDER else int(rank)


def choose(view: dict[str, Any]) -> dict[str, str] | None:
    """A quick player from its own view: go out when it can, else throw the dearest unmelded card."""
    legal = view.get("legal") or []
    if "draw_stock" in legal:
        return {"type": "draw", "source": "stock"}
    if "draw_discard" in legal:
        return {"type": "draw", "source": "discard"}
    if view.get("can_go_out"):
        return {"type": "go_out", "card": view["can_go_out"][0]}
    if "discard" in legal:
        deadwood = view["arrangement"]["deadwood"] or view["hand"]
        return {"type": "discard", "card": max(deadwood, key=card_points)}
    return None


class Table:
    def __init__(
        self, index: int, http: str, ws: str, stats: Stats, think: float, rng: random.Random
    ) -> None:
        self.index, self.http, self.ws, self.stats, self.think, self.rng = index, http, ws, stats, think, rng
        self.code = ""
        self.tokens: list[str] = []
        self.sent: dict[str, float] = {}
        self.rounds: dict[str, int] = {}  # action id -> the round it was played in
        self.arrivals: dict[int, list[float]] = {}
        self.ack_versions: dict[str, int] = {}
        self.done = asyncio.Event()
        self.finished_players = 0

    async def setup(self, client: httpx.AsyncClient) -> None:
        made = (
            await client.post(f"{self.http}/api/rooms", json={"name": f"host{self.index}", "seats": 4})
        ).json()
        self.code = made["code"]
        self.tokens = [made["token"]]
        for k in range(1, 4):
            joined = await client.post(
                f"{self.http}/api/rooms/{self.code}/join", json={"name": f"p{self.index}-{k}"}
            )
            self.tokens.append(joined.json()["token"])
        self.stats.acked[self.code] = set()

    async def play(self, watchers: int = 0) -> None:
        players = asyncio.gather(*(self.player(seat) for seat in range(4)))
        watching = [asyncio.create_task(self.watcher(4 + k)) for k in range(watchers)]
        try:
            await players
        finally:
            for task in watching:
                task.cancel()

    async def watcher(self, key: int) -> None:
        """A spectator's socket: says hello without a token and reads (reconnecting like a browser)."""
        attempt = 0
        await asyncio.sleep(CONNECT_SPREAD_S * self.rng.random())
        while True:
            try:
                async with websockets.connect(self.ws + self.code, max_size=2**22, open_timeout=30) as sock:
                    await sock.send(json.dumps({"type": "hello"}))
                    async for raw in sock:
                        self.stats.watcher_messages += 1
                        if self.stats.storms and raw.startswith('{"type":"state"'):
                            self.stats.storms[-1].hold((self.code, key), time.perf_counter())
                        attempt = 0
            except (TimeoutError, OSError, websockets.ConnectionClosed):
                pass
            await asyncio.sleep(BACKOFF_S[min(attempt, len(BACKOFF_S) - 1)] + 0.2 * self.rng.random())
            attempt += 1

    async def player(self, seat: int) -> None:
        # The storm at the start: every socket connects within the first second ("1,000 sockets
        # connecting within one second to a running server"), not all in the same millisecond.
        await asyncio.sleep(CONNECT_SPREAD_S * self.rng.random())
        started = seat != 0
        pending: dict[str, Any] | None = None  # an unacknowledged move, retried after a reconnect
        attempt = 0
        lost_at: float | None = None  # when this socket's connection was lost (after a SIGKILL)
        restarting = False  # the server said it is restarting (reset by its next state)
        while True:
            try:
                async with websockets.connect(self.ws + self.code, max_size=2**22, open_timeout=30) as sock:
                    hello = {"type": "hello", "token": self.tokens[seat]}
                    if ACKS_IN_STATE[0]:  # one frame fewer per move: the ack comes inside the state
                        hello["acks"] = "in_state"
                    await sock.send(json.dumps(hello))
                    if pending is not None:
                        await sock.send(json.dumps(pending))
                    version, view = -1, None
                    async for raw in sock:
                        msg = json.loads(raw)
                        now = time.perf_counter()
                        kind = msg["type"]
                        look = False  # whether the view we hold may now ask for a move
                        if kind == "state" and lost_at is not None:
                            killed = self.stats.killed_at
                            if killed is not None and lost_at >= killed:
                                self.stats.failover_ms.append((now - killed) * 1000)
                            lost_at, attempt = None, 0
                        if kind == "state":
                            restarting = False
                        if kind == "state" and "ack" in msg:  # the ack inside the state its move made
                            self.acknowledged(msg["ack"], msg["version"], now)
                            pending = None
                        if kind == "ack":
                            self.acknowledged(msg["id"], msg["version"], now)
                            pending = None
                            # A retried move that was committed before a crash: its state came already.
                            look = version >= msg["version"]
                        elif kind == "error":
                            if msg["code"] not in ("stale_version",):
                                self.stats.errors.append(
                                    f"{self.code}/{seat}: {msg['code']} {msg['message']}"
                                )
                            pending = None  # a fresh state follows a stale move
                        elif kind == "state":
                            if self.stats.storms:
                                self.stats.storms[-1].hold((self.code, seat), now)
                            if msg["version"] < version:
                                continue
                            version = msg["version"]
                            self.arrivals.setdefault(version, []).append(now)
                            room, view = msg["room"], msg["game"]
                            if room["status"] == "lobby" and not started:
                                if len([s for s in room["seats"] if s["connected"]]) == 4:
                                    started = True
                                    await sock.send(json.dumps({"type": "start"}))
                                continue
                            if view is not None and view["phase"] == "game_over":
                                return
                            look = True
                        elif kind == "presence" and not started and msg["room"]["status"] == "lobby":
                            # Who is connected changes no version: the host hears it as presence.
                            if len([s for s in msg["room"]["seats"] if s["connected"]]) == 4:
                                started = True
                                await sock.send(json.dumps({"type": "start"}))
                            continue
                        elif kind == "restarting":
                            restarting, attempt = True, 0
                            break
                        if not look or view is None or view["turn"] != seat or pending is not None:
                            continue
                        move = choose(view)
                        if move is None:
                            continue
                        if self.think:
                            await asyncio.sleep(self.think * self.rng.uniform(0.5, 1.5))
                        action_id = uuid.uuid4().hex
                        pending = {"type": "action", "id": action_id, "version": version, "action": move}
                        self.sent[action_id] = time.perf_counter()
                        self.rounds[action_id] = view["round"]
                        self.stats.actions += 1
                        await sock.send(json.dumps(pending))
            except (TimeoutError, OSError, websockets.ConnectionClosed):
                pass
            if lost_at is None:
                lost_at = time.perf_counter()
            self.stats.reconnects += 1
            # The browser's back-off (static/js/socket.js): 300 ms, 1 s, 2 s, 4 s, ... plus up to 200 ms;
            # after the server said it is restarting, 0.5-1 s between tries.
            if restarting and attempt < 40:
                await asyncio.sleep(RESTART_RETRY_S * (1 + self.rng.random()))
            else:
                await asyncio.sleep(BACKOFF_S[min(attempt, len(BACKOFF_S) - 1)] + 0.2 * self.rng.random())
            attempt += 1

    def acknowledged(self, action_id: str, version: int, now: float) -> None:
        """An ack (a message, or inside the state the move made): counted once, timed in the window."""
        if action_id in self.sent and action_id not in self.ack_versions:
            if self.sent[action_id] >= self.stats.window_start:
                self.stats.ack_ms.append((now - self.sent[action_id]) * 1000)
            self.ack_versions[action_id] = version
            self.stats.acked[self.code].add(action_id)

    def broadcast_latencies(self) -> list[tuple[float, float, int]]:
        """(when the action was sent, ms until all four sockets had its state, its round) per acknowledged
        action."""
        out = []
        for action_id, version in self.ack_versions.items():
            times = self.arrivals.get(version, [])
            if len(times) >= 4:
                sent = self.sent[action_id]
                out.append((sent, (max(times) - sent) * 1000, self.rounds[action_id]))
        return out


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds a process has used (0 when it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def postgres_cpu() -> float:
    """CPU seconds used so far by the PostgreSQL processes alive now (backends come and go with the pool,
    so a run's figure is a difference between two readings; a backend that ended between them is missed)."""
    total = 0.0
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if (proc / "comm").read_text().strip() in ("postgres", "postmaster"):
                    total += cpu_seconds(int(proc.name))
            except OSError:
                continue
    return total


def machine_cpu() -> float:
    """Busy CPU seconds of the whole machine so far (all cores; /proc/stat's first line less idle and
    iowait)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    busy = sum(fields[:8]) - fields[3] - fields[4]
    return busy / os.sysconf("SC_CLK_TCK")


def own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def run_tables(
    n: int,
    base: str,
    think: float,
    servers: list[Server],
    crash_after: float | None,
    duration: float | None,
    kill_one_after: float | None = None,
    others: dict[str, int] | None = None,
    warmup: float = 0.0,
    restart_after: float | None = None,
    watchers: int = 0,
    profile: float | None = None,
) -> Stats:
    stats = Stats()
    http, ws = base, base.replace("http", "ws", 1) + "/ws/"
    rng = random.Random(7)
    async with httpx.AsyncClient(timeout=30) as client:
        tables = [Table(i, http, ws, stats, think, random.Random(rng.random())) for i in range(n)]
        for table in tables:
            await table.setup(client)
    peak = [0.0]

    async def sample_rss() -> None:
        while True:
            peak[0] = max(peak[0], sum(rss_mb(s.proc.pid) for s in servers if s.proc))
            await asyncio.sleep(0.5)

    async def crasher() -> None:
        assert crash_after is not None
        await asyncio.sleep(crash_after)
        print(f"  SIGKILL after {crash_after:.0f} s ({stats.actions} actions sent)", flush=True)
        await asyncio.to_thread(servers[0].kill)
        await asyncio.to_thread(servers[0].start)
        print("  restarted", flush=True)

    async def kill_one() -> None:
        assert kill_one_after is not None
        await asyncio.sleep(kill_one_after)
        print(f"  SIGKILL one of {len(servers)} processes after {kill_one_after:.0f} s", flush=True)
        stats.killed_at = time.perf_counter()
        servers[0].kill()

    sockets = n * (4 + watchers)

    async def watch_storm(storm: Storm, port: int, before: str) -> None:
        """Until every socket holds its table (at most 20 s): then the process's own figures over it."""
        deadline = storm.started + 20
        while len(storm.held_ms) < storm.sockets and time.perf_counter() < deadline:
            await asyncio.sleep(0.05)
        storm.ended = time.perf_counter()
        storm.server_note = server_latency(await asyncio.to_thread(scrape, port), before)

    async def restarter() -> None:
        assert restart_after is not None
        await asyncio.sleep(restart_after)
        print(f"  SIGTERM after {restart_after:.0f} s; starting again", flush=True)
        await asyncio.to_thread(servers[0].stop)
        await asyncio.to_thread(servers[0].start)
        storm = Storm("restart (SIGTERM, start again)", time.perf_counter(), sockets)
        stats.storms.append(storm)
        await watch_storm(storm, servers[0].port, "")  # a new process: its metrics start at zero

    # The generator's own cycle-collector pauses would be counted as server latency: off while measuring
    # (its memory grows by the recorded timings only; the server keeps its own collector settings).
    gc.collect()
    gc.disable()
    sampler = asyncio.create_task(sample_rss())
    crash = asyncio.create_task(crasher()) if crash_after else None
    killer = asyncio.create_task(kill_one()) if kill_one_after else None
    restart = asyncio.create_task(restarter()) if restart_after else None
    connect_storm = Storm("connect (every socket at once, server running)", time.perf_counter(), sockets)
    stats.storms.append(connect_storm)
    storm_before = scrape(servers[0].port)
    playing = asyncio.gather(*(t.play(watchers) for t in tables))
    watching_storm = asyncio.create_task(watch_storm(connect_storm, servers[0].port, storm_before))
    if warmup:
        await asyncio.wait({playing}, timeout=warmup)
    stats.window_start = time.perf_counter()
    cpu_before = own_cpu()
    server_cpu_before = {s.proc.pid: cpu_seconds(s.proc.pid) for s in servers if s.proc}
    others_before = {name: cpu_seconds(pid) for name, pid in (others or {}).items()}
    postgres_before, machine_before = postgres_cpu(), machine_cpu()
    metrics_before = {s.port: scrape(s.port) for s in servers}
    start = stats.window_start
    profiler = asyncio.create_task(profile_server(servers[0], profile, stats)) if profile else None
    finished, _ = await asyncio.wait({playing}, timeout=duration)
    if profiler is not None:
        await profiler
    elapsed = time.perf_counter() - start
    stats.generator_cpu = own_cpu() - cpu_before
    stats.server_cpu = sum(
        cpu_seconds(pid) - before for pid, before in server_cpu_before.items() if cpu_seconds(pid) > 0
    )
    stats.other_cpu = {name: cpu_seconds(pid) - others_before[name] for name, pid in (others or {}).items()}
    stats.postgres_cpu, stats.machine_cpu = postgres_cpu() - postgres_before, machine_cpu() - machine_before
    # The peak also counts the end of the run, when every client closes at once: this is while they are open.
    stats.window_end_rss = sum(rss_mb(s.proc.pid) for s in servers if s.proc)
    for server in servers:  # each process's own figures, over the window only (its sockets still open)
        if server.proc is not None and server.proc.poll() is None and metrics_before.get(server.port):
            stats.server_notes.append(server_latency(scrape(server.port), metrics_before[server.port]))
    if finished:
        playing.result()  # a player's error is the run's
    else:  # a steady-state window: games stop mid-way, the checks still apply
        stats.stopped_early = True
        playing.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await playing
    gc.enable()
    sampler.cancel()
    for task in (crash, killer, restart, watching_storm):
        if task:
            task.cancel()
    for table in tables:
        sends = sorted(table.sent.values())
        gaps = [(b - a) * 1000 for a, b in zip(sends, sends[1:], strict=False)]
        if gaps:
            stats.table_gaps.append(statistics.median(gaps))
        for sent, ms, round_ in table.broadcast_latencies():
            for k, storm in enumerate(stats.storms):  # the 30 s after a storm, until the next one began
                until = stats.storms[k + 1].started if k + 1 < len(stats.storms) else float("inf")
                if storm.ended is not None and storm.ended <= sent < min(storm.ended + 30, until):
                    storm.after_ms.append(ms)
            if sent >= start:
                stats.broadcast_ms.append(ms)
                stats.broadcast_at.append((sent - start, ms))
                stats.broadcast_by_round.setdefault(round_, []).append(ms)
    stats.elapsed, stats.peak_rss, stats.codes = elapsed, peak[0], [t.code for t in tables]
    return stats


async def verify(database_url: str, stats: Stats, base: str) -> tuple[int, int, int]:
    """Every acknowledged action is in the store; every game replays to its stored state."""
    store = Store(database_url)
    missing = replays_bad = games = 0
    async with httpx.AsyncClient(timeout=30) as client:
        for code in stats.codes:
            info = (await client.get(f"{base}/api/rooms/{code}")).json()
            if info["game"] is None:
                continue  # a timed window that ended before this table started
            game_id = info["game"]["id"]
            # A timed window leaves moves in flight: the log and the snapshot are read again (a moment
            # later) until they are of the same move; a difference that stays is counted.
            for attempt in range(5):
                actions = await list_actions(store, game_id)
                loaded = await load_game_state(store, game_id)
                assert loaded is not None
                state = GameState.from_dict(loaded[1])
                rebuilt = replay(
                    state.players,
                    state.options,
                    state.seed,
                    [(a.seat, action_from_dict(a.action)) for a in actions],
                )
                if rebuilt == state or not stats.stopped_early:
                    break
                print(f"  {code}: log of {len(actions)} moves, snapshot after {state.moves}; reading again")
                await asyncio.sleep(0.5 * (attempt + 1))
            missing += len(stats.acked[code] - {a.client_id for a in actions})
            replays_bad += rebuilt != state
            games += 1
    await store.close()
    return games, missing, replays_bad


async def echo_baseline(sockets: int, messages_per_socket: int, think: float) -> list[float]:
    """A bare WebSocket echo server in another process, the same number of sockets, one message at a time."""
    port = free_port()
    code = (
        "import asyncio, websockets\n"
        "async def echo(ws):\n"
        "    async for m in ws:\n"
        "        await ws.send(m)\n"
        "async def main():\n"
        f"    async with websockets.serve(echo, '127.0.0.1', {port}, max_size=2**22):\n"
        "        await asyncio.Future()\n"
        "asyncio.run(main())\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code])
    latencies: list[float] = []
    try:
        for _ in range(100):
            try:
                async with websockets.connect(f"ws://127.0.0.1:{port}"):
                    break
            except OSError:
                await asyncio.sleep(0.1)
        rng = random.Random(3)
        payload = json.dumps(
            {
                "type": "action",
                "id": uuid.uuid4().hex,
                "version": 1,
                "action": {"type": "discard", "card": "10H"},
                "pad": "x" * 2000,
            }
        )

        async def one() -> None:
            async with websockets.connect(f"ws://127.0.0.1:{port}", max_size=2**22) as sock:
                for _ in range(messages_per_socket):
                    if think:
                        await asyncio.sleep(think * rng.uniform(0.5, 1.5))
                    t0 = time.perf_counter()
                    await sock.send(payload)
                    await sock.recv()
                    latencies.append((time.perf_counter() - t0) * 1000)

        await asyncio.gather(*(one() for _ in range(sockets)))
    finally:
        proc.terminate()
        proc.wait()
    return latencies


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=250)
    parser.add_argument("--think", type=float, default=1.0, help="seconds each player waits before a move")
    parser.add_argument("--postgres", action="store_true", help="use TEST_POSTGRES_URL instead of SQLite")
    parser.add_argument(
        "--duration", type=float, default=None, help="stop after S seconds instead of at the games' end"
    )
    parser.add_argument("--crash-after", type=float, default=None, help="SIGKILL and restart after S seconds")
    parser.add_argument("--restart-after", type=float, default=None, help="SIGTERM and start again after S s")
    parser.add_argument("--warmup", type=float, default=0.0, help="the window starts W s after the tables")
    parser.add_argument("--watchers", type=int, default=0, help="watching sockets per table")
    parser.add_argument("--no-echo", action="store_true", help="skip the bare echo server's baseline")
    parser.add_argument(
        "--profile", type=float, default=None,
        help="py-spy (pip install py-spy) samples the server for S s of the window: CPU by layer",
    )  # fmt: skip
    parser.add_argument(
        "--profile-out", default=None,
        help="with --profile: keep py-spy's stacks in this file (benchmarks/profile_layers.py reads it)",
    )  # fmt: skip
    parser.add_argument(
        "--acks", choices=("in_state", "frame"), default="in_state",
        help="players' acks inside the state (one frame fewer per move) or as ack messages (older servers)",
    )  # fmt: skip
    parser.add_argument(
        "--processes",
        type=int,
        nargs="+",
        default=None,
        help="through Caddy on PostgreSQL: N app processes (Redis when N > 1); several values run in turn",
    )
    parser.add_argument(
        "--kill-one-after", type=float, default=None, help="with --processes: SIGKILL one process after S s"
    )
    parser.add_argument(
        "--redis",
        nargs="+",
        choices=("single", "cluster"),
        default=["single"],
        help="with --processes above 1: one redis-server or a Redis Cluster of three nodes (each in turn)",
    )
    parser.add_argument(
        "--balance",
        nargs="+",
        choices=("table", "round_robin"),
        default=["table"],
        help="with --processes: Caddy's policy (a table's sockets on one process, or round robin)",
    )
    args = parser.parse_args()
    ACKS_IN_STATE[0] = args.acks == "in_state"
    PROFILE_OUT[0] = args.profile_out
    if args.processes:
        run_processes(args)
        return

    if args.postgres:
        database_url = os.environ.get(
            "TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
        )
        reset_postgres(database_url)
    else:
        database_url = f"sqlite+aiosqlite:///{tempfile.mkdtemp()}/load.db"
    port = free_port()
    server = Server(database_url, port)
    server.start()
    print(
        f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}; db: {database_url.split(':')[0]}"
    )
    watching = f" + {args.watchers} watchers" if args.watchers else ""
    print(
        f"{args.tables} tables x 4 sockets{watching}, think {args.think} s; window {args.duration} s after a "
        f"warm-up of {args.warmup} s; load average {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        stats = asyncio.run(
            run_tables(
                args.tables,
                base,
                args.think,
                [server],
                args.crash_after,
                args.duration,
                warmup=args.warmup,
                restart_after=args.restart_after,
                watchers=args.watchers,
                profile=args.profile,
            )  # fmt: skip
        )
        games, missing, bad = asyncio.run(verify(database_url, stats, base))
    finally:
        server.stop()
    moves = len(stats.ack_ms)
    print(f"committed moves in the window: {moves} in {stats.elapsed:.1f} s = {moves / stats.elapsed:.0f}/s")
    print(spread("action->ack      ", stats.ack_ms))
    print(spread("action->broadcast", stats.broadcast_ms))
    windows: dict[int, list[float]] = {}
    for at, ms in stats.broadcast_at:
        windows.setdefault(int(at // 10), []).append(ms)
    print(
        "action->broadcast p99 per 10 s:",
        " ".join(f"{percentile(windows[w], 0.99):.0f}" for w in sorted(windows)),
        "ms",
    )
    print(
        "action->broadcast p99 by round:",
        " ".join(f"{r}:{percentile(ms, 0.99):.0f}" for r, ms in sorted(stats.broadcast_by_round.items())),
        "ms",
    )
    print(fairness(stats))
    for line in cpu_lines(stats) + stats.server_notes:
        print(line)
    print(
        f"server peak RSS {stats.peak_rss:.0f} MB (at the window's end, every socket open: "
        f"{stats.window_end_rss:.0f} MB); errors {len(stats.errors)}; reconnects {stats.reconnects}"
    )
    for line in stats.errors[:10]:
        print("  error:", line)
    print(f"durability: {games} games checked, {missing} acknowledged actions missing, {bad} replays differ")
    for line in storm_lines(stats):
        print(line)
    for line in profile_lines(stats, "the server's CPU by layer (py-spy, the main thread's busy samples):"):
        print(line)
    if args.watchers:
        print(f"watchers: {args.tables * args.watchers} sockets read {stats.watcher_messages} messages")
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    if args.no_echo:
        return
    per_socket = max(1, stats.actions // max(1, args.tables * 4))
    echo = asyncio.run(echo_baseline(args.tables * 4, min(per_socket, 50), args.think))
    print(spread(f"echo baseline ({args.tables * 4} sockets)", echo))
    for q in (0.5, 0.99):
        ratio = percentile(stats.broadcast_ms, q) / percentile(echo, q)
        print(f"ratio action->broadcast / echo at p{int(q * 100)}: {ratio:.1f}x")


def profile_lines(stats: Stats, heading: str) -> list[str]:
    """``--profile``'s report: its heading (or why there is none) and the busy samples by layer."""
    if not (stats.profile or stats.profile_note):
        return []
    from benchmarks.profile_layers import report

    return [stats.profile_note or heading, *([report(stats.profile)] if stats.profile else [])]


def run_processes(args: argparse.Namespace) -> None:
    """Each configuration in turn, then a summary with ratios to the first (same run, same machine)."""
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}; load {os.getloadavg()[0]:.1f}")
    print(
        f"{args.tables} tables x 4 sockets, think {args.think} s, "
        f"window {args.duration} s after a warm-up of {args.warmup} s",
        flush=True,
    )
    rows = []
    # One process is the same under any policy; more are run under each one asked for.
    configurations = [
        (n, policy, kind)
        for n in args.processes
        for policy in (args.balance[:1] if n == 1 else args.balance)
        for kind in (args.redis[:1] if n == 1 else args.redis)
    ]
    for n, policy, kind in configurations:
        redis = {"single": " + Redis", "cluster": " + Redis Cluster (3 nodes)"}[kind] if n > 1 else ""
        load = f"load {os.getloadavg()[0]:.1f}"
        print(f"== {n} process{'es' if n > 1 else ''} behind Caddy ({policy}){redis}; {load}", flush=True)
        stats, checks = run_configuration(n, args, policy, kind)
        moves = len(stats.ack_ms) / stats.elapsed
        rows.append(
            (f"{n} process{'es' if n > 1 else ''} ({policy}{', ' + kind if n > 1 else ''})", stats, moves)
        )
        print(f"  load average after it {os.getloadavg()[0]:.1f}")
        print(f"  committed moves/s {moves:.0f}; errors {len(stats.errors)}; reconnects {stats.reconnects}")
        print("  " + spread("action->ack      ", stats.ack_ms))
        print("  " + spread("action->broadcast", stats.broadcast_ms))
        print("  " + fairness(stats))
        for line in cpu_lines(stats) + stats.server_notes:
            print("  " + line)
        heading = "one process's CPU by layer (py-spy, its main thread's busy samples):"
        for line in profile_lines(stats, heading):
            print("  " + line)
        if stats.killed_at is not None:
            print("  " + spread("failover (SIGKILL -> first state)", stats.failover_ms))
        games, missing, bad = checks
        print(
            f"  durability: {games} games checked, {missing} acknowledged moves missing, {bad} replays differ"
        )
        for line in stats.errors[:5]:
            print("  error:", line)
    first = rows[0]
    print("summary (ratios to the first configuration, measured in this run):")
    first_app = app_cpu_per_move(first[1])
    first_redis = next((r for _, st, _ in rows if (r := redis_cpu_per_move(st)) is not None), None)
    for n, stats, moves in rows:
        p99 = percentile(stats.broadcast_ms, 0.99)
        app = app_cpu_per_move(stats)
        redis = redis_cpu_per_move(stats)
        redis_part = (
            f", Redis CPU per move {1000 * redis:.3f} ms ({redis / first_redis:.2f}x)"
            if redis is not None and first_redis
            else ""
        )
        print(
            f"  {n}: {moves:6.0f} moves/s ({moves / first[2]:.2f}x), broadcast p50 "
            f"{percentile(stats.broadcast_ms, 0.5):.1f} ms p99 {p99:.1f} ms "
            f"({p99 / percentile(first[1].broadcast_ms, 0.99):.2f}x), app CPU per move {1000 * app:.2f} ms "
            f"({app / first_app:.2f}x){redis_part}, "
            f"generator CPU {100 * stats.generator_cpu / stats.elapsed:.0f}%"
        )


def run_configuration(
    n: int, args: argparse.Namespace, policy: str = "table", redis_kind: str = "single"
) -> tuple[Stats, tuple[int, int, int]]:
    """n app processes on a fresh PostgreSQL database (and when n > 1 a redis-server, or a Redis Cluster of
    three nodes: ``redis_kind``), behind Caddy balancing by ``policy``."""
    from tests.scale.cluster import RedisCluster, caddyfile, redis_of

    tmp = Path(tempfile.mkdtemp(prefix="load-"))
    base_url = os.environ.get("TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test")
    database_url = asyncio.run(create_database(base_url))
    redis = redis_of(redis_kind, tmp) if n > 1 else None
    servers: list[Server] = []
    caddy: subprocess.Popen[bytes] | None = None
    try:
        extra = {"TRUSTED_PROXIES": "127.0.0.1"}
        if redis is not None:
            redis.start()
            extra["REDIS_URL"] = redis.url
        servers = [Server(database_url, free_port(), **extra) for _ in range(n)]
        for server in servers:
            server.start()
            wait_http(f"http://127.0.0.1:{server.port}/readyz")
        balancer_port = free_port()
        (tmp / "Caddyfile").write_text(caddyfile(balancer_port, [s.port for s in servers], policy))
        env = {**os.environ, "HOME": str(tmp), "XDG_DATA_HOME": str(tmp), "XDG_CONFIG_HOME": str(tmp)}
        with (tmp / "caddy.log").open("ab") as log:
            caddy = subprocess.Popen(
                [
                    shutil.which("caddy") or "/usr/bin/caddy",
                    "run",
                    "--config",
                    str(tmp / "Caddyfile"),
                    "--adapter",
                    "caddyfile",
                ],
                env=env,
                stdout=log,
                stderr=log,
            )
        base = f"http://127.0.0.1:{balancer_port}"
        others = {"caddy": caddy.pid}
        nodes = redis.nodes if isinstance(redis, RedisCluster) else [redis] if redis is not None else []
        for i, node in enumerate(nodes):
            if node.proc is not None:
                others["redis" if len(nodes) == 1 else f"redis{i}"] = node.proc.pid
        wait_http(f"{base}/readyz")
        time.sleep(1.5)  # every upstream passes Caddy's first health checks
        stats = asyncio.run(
            run_tables(
                args.tables,
                base,
                args.think,
                servers,
                None,
                args.duration,
                args.kill_one_after,
                others,
                warmup=args.warmup,
                profile=args.profile,
            )
        )
        checks = asyncio.run(verify(database_url, stats, base))
        return stats, checks
    finally:
        for server in servers:
            server.stop()
        if caddy is not None:
            caddy.kill()
            caddy.wait()
        if redis is not None:
            redis.kill()
        asyncio.run(drop_database(base_url, database_url))
        shutil.rmtree(tmp, ignore_errors=True)


def wait_http(url: str, timeout: float = 30) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            if httpx.get(url, timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{url} did not answer 200")


def _asyncpg_dsn(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


async def create_database(base_url: str) -> str:
    """A fresh database of this run's own (other people's runs use the shared one)."""
    import asyncpg
    from sqlalchemy.engine import make_url

    name = f"tt_load_{uuid.uuid4().hex[:10]}"
    admin = await asyncpg.connect(_asyncpg_dsn(base_url))
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    return make_url(base_url).set(database=name).render_as_string(hide_password=False)


async def drop_database(base_url: str, url: str) -> None:
    import asyncpg
    from sqlalchemy.engine import make_url

    admin = await asyncpg.connect(_asyncpg_dsn(base_url))
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{make_url(url).database}" WITH (FORCE)')
    finally:
        await admin.close()


def app_cpu_per_move(stats: Stats) -> float:
    """Seconds of CPU the app processes used per committed move in the window."""
    return stats.server_cpu / max(1, len(stats.ack_ms))


def redis_cpu_per_move(stats: Stats) -> float | None:
    """Seconds of CPU Redis used per committed move in the window (a cluster's nodes summed); None: none."""
    used = [cpu for name, cpu in stats.other_cpu.items() if name.startswith("redis")]
    return sum(used) / max(1, len(stats.ack_ms)) if used else None


def cpu_lines(stats: Stats) -> list[str]:
    """Who used the machine during the window: the generator, the app, the other parts, the whole machine,
    and so how many moves per second the cores could give at most at this CPU cost per move."""
    parts = ", ".join(f"{k} {100 * v / stats.elapsed:.0f}%" for k, v in stats.other_cpu.items())
    per_move, cores = stats.machine_cpu / max(1, len(stats.ack_ms)), os.cpu_count() or 1
    app_per_move = app_cpu_per_move(stats)
    return [
        f"CPU: load generator {100 * stats.generator_cpu / stats.elapsed:.0f}% of a core, "
        f"app processes {100 * stats.server_cpu / stats.elapsed:.0f}% "
        f"({1000 * app_per_move:.2f} ms per move), "
        + (parts + ", " if parts else "")
        + f"postgres {100 * stats.postgres_cpu / stats.elapsed:.0f}%; peak RSS {stats.peak_rss:.0f} MB",
        f"whole machine: {100 * stats.machine_cpu / stats.elapsed / cores:.0f}% of its {cores} cores busy, "
        f"{1000 * per_move:.2f} ms of CPU per committed move: at most "
        f"{cores / max(per_move, 1e-9):.0f} moves/s if every core were busy",
    ]


def scrape(port: int) -> str:
    """A server process's /metrics text ('' if it does not answer)."""
    try:
        return httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text
    except httpx.HTTPError:
        return ""


def histogram_buckets(metrics_text: str, name: str, label: str = "") -> list[tuple[float, float]]:
    """(upper bound, cumulative count) of each bucket of a Prometheus histogram (of the series whose labels
    include ``label``, e.g. 'generation="2"')."""
    buckets = []
    for line in metrics_text.splitlines():
        if line.startswith(name + "_bucket{") and label in line:
            bound = line.split('le="', 1)[1].split('"', 1)[0]
            buckets.append((float("inf") if bound == "+Inf" else float(bound), float(line.rsplit(" ", 1)[1])))
    return buckets


def histogram_quantile(after: str, before: str, name: str, q: float, label: str = "") -> float | None:
    """The ``q`` quantile in ms of what a histogram counted between two scrapes (linear within a bucket;
    the last finite bound if it falls in +Inf); None when it counted nothing meanwhile."""
    earlier = dict(histogram_buckets(before, name, label))
    buckets = [
        (bound, count - earlier.get(bound, 0.0)) for bound, count in histogram_buckets(after, name, label)
    ]
    total = buckets[-1][1] if buckets else 0.0
    if not total:
        return None
    low, below = 0.0, 0.0
    for bound, count in buckets:
        if count >= q * total:
            if bound == float("inf"):
                return low * 1000
            return 1000 * (low + (bound - low) * (q * total - below) / max(count - below, 1e-9))
        low, below = bound, count
    return low * 1000


def server_latency(after: str, before: str) -> str:
    """A process's own account over the window (its /metrics histograms): its moves from reaching their
    room to the ack (lock wait, engine, commit), and how late its event loop ran a 100 ms timer (a callback
    holding the loop up delays every table of the process)."""

    def ms(name: str, q: float, label: str = "") -> str:
        value = histogram_quantile(after, before, name, q, label)
        return "-" if value is None else f"{value:.2f}"

    def runs(name: str, label: str) -> int:
        counted = [histogram_buckets(text, name, label) for text in (before, after)]
        earlier = counted[0][-1][1] if counted[0] else 0.0  # a new process: nothing before
        return int(counted[1][-1][1] - earlier) if counted[1] else 0

    action, lag = "threethirteen_action_latency_seconds", "threethirteen_event_loop_lag_seconds"
    gc_pause = "threethirteen_gc_pause_seconds"
    parts = []
    for generation in (0, 1, 2):
        label = f'generation="{generation}"'
        longest = ms(gc_pause, 1.0, label)
        parts.append(f"gen{generation} {runs(gc_pause, label)} runs, longest about {longest} ms")
    collections = "; ".join(parts)
    return (
        f"server's own: room -> ack p50 {ms(action, 0.5)} ms, p99 {ms(action, 0.99)} ms; "
        f"event-loop lag p50 {ms(lag, 0.5)} ms, p99 {ms(lag, 0.99)} ms, p99.9 {ms(lag, 0.999)} ms; "
        f"cycle collector: {collections}"
    )


async def profile_server(server: Server, seconds: float, stats: Stats) -> None:
    """Sample the server's main thread with py-spy (native frames: system calls, zlib, the collector) for
    ``seconds`` of the window; its busy samples by layer go to ``stats.profile``. Sampling stops the process
    200 times a second, so the shares are what to read, not the latency of the run."""
    from benchmarks.profile_layers import layers

    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if server.proc is None or not Path(spy).exists():
        stats.profile_note = "no profile: py-spy is not installed (pip install py-spy)"
        return
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(PROFILE_OUT[0] or Path(tmp) / "profile.txt")  # --profile-out keeps it
        command = [spy, "record", "-p", str(server.proc.pid), "-d", str(int(seconds)), "-r", "200"]
        command += ["--native", "--threads", "-f", "raw", "-o", str(out)]
        spied = await asyncio.create_subprocess_exec(
            *command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        await spied.wait()
        stats.profile = layers(out.read_text(errors="replace"))


def storm_lines(stats: Stats) -> list[str]:
    """Each storm: how long its sockets took to hold their tables, the process's own figures over it, and
    the moves of the 30 s after it."""
    lines = []
    for storm in stats.storms:
        held = list(storm.held_ms.values())
        lines.append(
            f"storm, {storm.name}: {len(held)} of {storm.sockets} sockets held their table; "
            f"p50 {percentile(held, 0.5):.0f} ms, p99 {percentile(held, 0.99):.0f} ms, "
            f"last {max(held, default=float('nan')):.0f} ms"
        )
        lines.append(f"  over the storm, {storm.server_note}")
        lines.append("  " + spread("moves of the 30 s after (or until the next storm)", storm.after_ms))
    return lines


def fairness(stats: Stats) -> str:
    """How evenly the server shares itself out (issue 17): the tail against the median, and the slowest
    table's median time between its own moves against the median table's."""
    tail = percentile(stats.broadcast_ms, 0.99) / max(percentile(stats.broadcast_ms, 0.5), 1e-9)
    gaps = stats.table_gaps or [0.0]
    slowest = max(gaps) / max(statistics.median(gaps), 1e-9)
    return (
        f"fairness: broadcast p99/p50 {tail:.1f}x; time between a table's moves: median table "
        f"{statistics.median(gaps):.0f} ms, slowest table {max(gaps):.0f} ms ({slowest:.1f}x)"
    )


def spread(label: str, values: list[float]) -> str:
    p50, p95, p99 = (percentile(values, q) for q in (0.5, 0.95, 0.99))
    return f"{label} p50 {p50:7.1f} ms  p95 {p95:7.1f} ms  p99 {p99:7.1f} ms  (n={len(values)})"


def reset_postgres(url: str) -> None:
    """Start from an empty schema so the run measures a fresh database."""

    async def drop() -> None:
        from sqlalchemy import text

        store = Store(url)
        async with store.engine.begin() as conn:
            await conn.execute(text("DROP SCHEMA public CASCADE"))
            await conn.execute(text("CREATE SCHEMA public"))
        await store.close()

    asyncio.run(drop())


if __name__ == "__main__":
    main()
