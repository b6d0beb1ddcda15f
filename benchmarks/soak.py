"""Soak: the real server under mixed play for a long run, and whether its memory settles (issue 39, point 6).

    python benchmarks/soak.py                          # 30 minutes, 12 tables, SQLite in a temporary dir
    python benchmarks/soak.py --minutes 3 --tables 6   # a quick look

Starts ``python -m app`` (``benchmarks/load.py``'s ``Server``: the per-address limits lifted, since every
socket comes from 127.0.0.1; the message, chat and seat limits as shipped). Then, for ``--minutes``:

- ``--tables`` tables at a time, each two people and an easy bot, played to the end at ``--think`` seconds
  a move (jittered ±50%); a finished table is followed by a new one (its room leaves memory when idle);
- ``--watchers`` watching sockets per table, each leaving and coming back every 10-30 s;
- socket churn: after any move a player's socket closes with probability ``--churn`` and reconnects with its
  token and its last version (as a browser does after a network change);
- a chat line or a reaction now and then (within the chat limit), and REST reads (the room, a game page, a
  record, the board, a name's games) from a reader at about two a second.

The server's resident memory is read from /proc every second. After ``--warmup`` minutes (default: a sixth of
the run, at most 5), the baseline is the median of the first minute; the end is the median of the last minute.
Prints the median per minute, the growth (end - baseline, MiB) against the target (at most 5 MiB), the
least-squares slope after the warm-up (MiB/hour), and, at the baseline and at the end, what the server's
/metrics says of its tables, sockets, evictions and Python's collector, and the database's size: where any
growth could go. Also: moves, games, reconnects, move latency (sent to ack) p50/p99, and every error the
server sent that the load does not expect. Exits 1 if the server died or an unexpected error came.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import statistics
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import websockets

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.load import Server, choose, free_port, percentile  # noqa: E402

EXPECTED_ERRORS = {
    "stale_version",
    "rate_limited",
}  # a move raced by a reconnect; a burst of chat  # a move raced by a reconnect; a burst of chat
METRICS = ("threethirteen_open_tables", "threethirteen_open_sockets", "threethirteen_rooms_evicted_total")
REACTIONS = ("👍", "👏", "😂")


@dataclass
class Totals:
    moves: int = 0
    games: int = 0
    reconnects: int = 0
    watcher_visits: int = 0
    chats: int = 0
    reads: int = 0
    move_ms: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


class Soak:
    def __init__(self, base: str, args: argparse.Namespace, end: float) -> None:
        self.base, self.args, self.end = base, args, end
        self.ws = base.replace("http", "ws", 1) + "/ws/"
        self.rng = random.Random(7)
        self.totals = Totals()
        self.codes: list[str] = []  # tables made so far (the reader's choice)
        self.games: list[str] = []  # finished games' public ids
        self.names: list[str] = []
        self.counter = 0

    async def table_loop(self, http: httpx.AsyncClient) -> None:
        """Tables one after another, each played to its end, until the run's end."""
        while time.monotonic() < self.end:
            self.counter += 1
            n = self.counter
            made = (
                await http.post("/api/rooms", json={"name": f"Host {n}", "seats": 3, "bots": ["easy"]})
            ).json()
            code, people = made["code"], [(made["seat"], made["token"])]
            joined = (await http.post(f"/api/rooms/{code}/join", json={"name": f"Guest {n}"})).json()
            people.append((joined["seat"], joined["token"]))  # the bot sits between them
            self.codes.append(code)
            self.names += [f"Host {n}", f"Guest {n}"]
            stop = asyncio.Event()
            watchers = [asyncio.create_task(self.watcher(code, stop)) for _ in range(self.args.watchers)]
            await asyncio.gather(*(self.player(code, token, seat) for seat, token in people))
            stop.set()
            await asyncio.gather(*watchers, return_exceptions=True)
            self.totals.games += 1

    async def player(self, code: str, token: str, seat: int) -> None:
        """A person at the table: plays each turn after a think, chats now and then, and drops its socket
        now and then, coming back with its token and last version."""
        version, started = None, seat != 0
        while True:
            try:
                async with websockets.connect(self.ws + code, max_size=2**22, open_timeout=30) as sock:
                    hello: dict[str, object] = {"type": "hello", "token": token, "acks": "in_state"}
                    if version is not None:
                        hello["last_version"] = version
                    await sock.send(json.dumps(hello))
                    sent: dict[str, float] = {}
                    async for raw in sock:
                        msg = json.loads(raw)
                        kind = msg["type"]
                        if kind == "error":
                            if msg["code"] not in EXPECTED_ERRORS:
                                self.totals.errors.append(f"{code}/{seat}: {msg['code']} {msg['message']}")
                            continue
                        if kind == "presence" and not started and msg["room"]["status"] == "lobby":
                            if all(s["connected"] or s["bot"] for s in msg["room"]["seats"]):
                                started = True
                                await sock.send(json.dumps({"type": "start"}))
                            continue
                        if kind != "state":
                            continue
                        if "ack" in msg and msg["ack"] in sent:
                            self.totals.move_ms.append((time.perf_counter() - sent.pop(msg["ack"])) * 1000)
                        version = msg["version"]
                        room, view = msg["room"], msg["game"]
                        if room["status"] == "lobby":
                            if not started and all(s["connected"] or s["bot"] for s in room["seats"]):
                                started = True
                                await sock.send(json.dumps({"type": "start"}))
                            continue
                        if view is None:
                            continue
                        if view["phase"] == "game_over":
                            return
                        if view["turn"] != seat or time.monotonic() > self.end + 120:
                            continue
                        move = choose(view)
                        if move is None:
                            continue
                        await asyncio.sleep(self.args.think * self.rng.uniform(0.5, 1.5))
                        action_id = uuid.uuid4().hex
                        sent[action_id] = time.perf_counter()
                        await sock.send(
                            json.dumps(
                                {"type": "action", "id": action_id, "version": version, "action": move}
                            )
                        )
                        self.totals.moves += 1
                        if self.rng.random() < self.args.chat:
                            await self.say(sock)
                        if self.rng.random() < self.args.churn:
                            break  # the phone lost its network: the socket goes, a new one comes
            except (TimeoutError, OSError, websockets.ConnectionClosed):
                pass
            self.totals.reconnects += 1
            await asyncio.sleep(0.3 + 0.2 * self.rng.random())

    async def say(self, sock: websockets.ClientConnection) -> None:
        self.totals.chats += 1
        if self.rng.random() < 0.5:
            await sock.send(json.dumps({"type": "chat", "text": f"good move {self.rng.randrange(100)}"}))
        else:
            await sock.send(json.dumps({"type": "react", "emoji": self.rng.choice(REACTIONS)}))

    async def watcher(self, code: str, stop: asyncio.Event) -> None:
        """A spectator who comes and goes: 10-30 s at the table, then a fresh socket."""
        while not stop.is_set():
            try:
                async with websockets.connect(self.ws + code, max_size=2**22, open_timeout=30) as sock:
                    await sock.send(json.dumps({"type": "hello"}))
                    self.totals.watcher_visits += 1
                    stay = self.rng.uniform(10, 30)
                    deadline = time.monotonic() + stay
                    while not stop.is_set() and time.monotonic() < deadline:
                        with contextlib.suppress(TimeoutError):
                            await asyncio.wait_for(sock.recv(), timeout=1)
            except (OSError, websockets.ConnectionClosed):
                await asyncio.sleep(1)

    async def reader(self, http: httpx.AsyncClient) -> None:
        """REST reads at about two a second: the room, the board, a record, a name's games, a game."""
        while time.monotonic() < self.end:
            await asyncio.sleep(0.5)
            if not self.codes:
                continue
            code, name = self.rng.choice(self.codes), self.rng.choice(self.names)
            path = self.rng.choice(
                [
                    f"/api/rooms/{code}",
                    f"/api/rooms/{code}/games",
                    "/api/leaderboard",
                    f"/api/players/{name}",
                    f"/api/players/{name}/games",
                ]
            )
            response = await http.get(path)
            self.totals.reads += 1
            if response.status_code not in (200, 404, 429):
                self.totals.errors.append(f"GET {path}: {response.status_code} {response.text[:100]}")


def rss_mib(pid: int) -> float:
    text = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+)", text).group(1)) / 1024  # type: ignore[union-attr]


def metrics_line(base: str, pid: int, database: Path) -> str:
    """Where memory could be held: what the server's /metrics says of its tables and sockets, the process's
    resident memory split into heap (anonymous) and file-backed pages, its open files and threads (/proc),
    and the database's files."""
    text = httpx.get(f"{base}/metrics", timeout=10).text
    found = []
    for name in METRICS:
        match = re.search(rf"^{re.escape(name)} (\S+)$", text, flags=re.MULTILINE)
        found.append(f"{name.removeprefix('threethirteen_')}={match.group(1) if match else '?'}")
    status = Path(f"/proc/{pid}/status").read_text()
    for key in ("RssAnon", "RssFile"):
        match = re.search(rf"^{key}:\s+(\d+)", status, flags=re.MULTILINE)
        found.append(f"{key}={int(match.group(1)) / 1024 if match else 0:.1f}MiB")
    threads = re.search(r"^Threads:\s+(\d+)", status, flags=re.MULTILINE)
    found.append(f"threads={threads.group(1) if threads else '?'}")
    found.append(f"fds={len(list(Path(f'/proc/{pid}/fd').iterdir()))}")
    size = sum(p.stat().st_size for p in database.parent.glob(database.name + "*")) / 2**20
    found.append(f"database={size:.1f}MiB")
    return " ".join(found)


async def sample(pid: int, samples: list[tuple[float, float]], start: float, end: float) -> None:
    while time.monotonic() < end:
        samples.append((time.monotonic() - start, rss_mib(pid)))
        await asyncio.sleep(1)


def slope_per_hour(points: list[tuple[float, float]]) -> float:
    """Least squares: MiB per hour."""
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    var = sum((x - mean_x) ** 2 for x in xs)
    return 0.0 if var == 0 else sum((x - mean_x) * (y - mean_y) for x, y in points) / var * 3600


async def run(args: argparse.Namespace) -> int:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        database = Path(tmp) / "soak.db"
        server = Server(f"sqlite+aiosqlite:///{database}", port, BOT_DELAY_MS="300", LOG_LEVEL="error")
        server.start()
        assert server.proc is not None
        pid = server.proc.pid
        start = time.monotonic()
        end = start + args.minutes * 60
        warmup = min(args.warmup if args.warmup is not None else args.minutes / 6, 5) * 60
        soak = Soak(base, args, end)
        samples: list[tuple[float, float]] = []
        sampler = asyncio.create_task(sample(pid, samples, start, end))
        at_baseline = ""

        async def note_baseline() -> None:
            nonlocal at_baseline
            await asyncio.sleep(warmup + 60)
            at_baseline = metrics_line(base, pid, database)

        noted = asyncio.create_task(note_baseline())
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:
            work = [asyncio.create_task(soak.table_loop(http)) for _ in range(args.tables)]
            work.append(asyncio.create_task(soak.reader(http)))
            await sampler
            alive = server.proc.poll() is None
            at_end = metrics_line(base, pid, database) if alive else "(the server died)"
            await noted if noted.done() else None
            for task in work:
                task.cancel()
            await asyncio.gather(*work, return_exceptions=True)
        server.stop()
    totals = soak.totals
    print(
        f"soak: {args.minutes} min, {args.tables} tables, {args.watchers} watchers each, think {args.think} s"
    )
    print("minute  median RSS (MiB)")
    for minute in range(int(args.minutes)):
        values = [rss for t, rss in samples if minute * 60 <= t < (minute + 1) * 60]
        if values:
            print(f"{minute + 1:6d}  {statistics.median(values):8.1f}")
    after = [p for p in samples if p[0] >= warmup]
    first = [rss for t, rss in after if t < warmup + 60]
    last = [rss for t, rss in samples if t >= samples[-1][0] - 60]
    baseline, final = statistics.median(first), statistics.median(last)
    growth = final - baseline
    print(
        f"warm-up {warmup / 60:.1f} min; baseline (the minute after) {baseline:.1f} MiB;"
        f" end (last minute) {final:.1f}"
    )
    print(f"growth {growth:+.1f} MiB (target <= 5 MiB): {'PASS' if growth <= 5 else 'FAIL'}")
    print(
        f"slope after warm-up: {slope_per_hour(after):+.2f} MiB/hour;"
        f" peak {max(r for _, r in samples):.1f} MiB"
    )
    print(f"at baseline: {at_baseline or '(not reached)'}")
    print(f"at the end:  {at_end}")
    print(
        f"moves {totals.moves}, games {totals.games}, reconnects {totals.reconnects}, watcher visits "
        f"{totals.watcher_visits}, chat lines and reactions {totals.chats}, REST reads {totals.reads}"
    )
    if totals.move_ms:
        print(
            f"move sent -> ack: p50 {percentile(totals.move_ms, 0.5):.1f} ms,"
            f" p99 {percentile(totals.move_ms, 0.99):.1f} ms"
        )
    print(f"unexpected errors: {len(totals.errors)}")
    for error in totals.errors[:10]:
        print(f"  {error}")
    return 0 if alive and not totals.errors else 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--tables", type=int, default=12, help="tables played at a time")
    parser.add_argument("--watchers", type=int, default=2, help="watching sockets per table")
    parser.add_argument("--think", type=float, default=0.3, help="seconds before each move (±50%%)")
    parser.add_argument(
        "--churn", type=float, default=0.03, help="chance a player's socket drops after a move"
    )
    parser.add_argument(
        "--chat", type=float, default=0.05, help="chance of a chat line or reaction after a move"
    )
    parser.add_argument(
        "--warmup", type=float, default=None, help="minutes (default: a sixth of the run, at most 5)"
    )
    args = parser.parse_args()
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(asyncio.run(run(args)))


if __name__ == "__main__":
    main()
