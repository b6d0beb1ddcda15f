"""Compressed floods against a real server: its peak memory, and another table's latency, with and
without the attack, measured in the same run.

    python benchmarks/ws_memory.py                       # 50 sockets, 20 s phases, 3 rounds
    python benchmarks/ws_memory.py --sockets 19 --seconds 3 --rounds 1

Starts ``python -m app`` (defaults, SQLite in a temporary directory; MAX_CONNECTS_PER_SECOND and
MAX_SOCKETS_PER_ADDRESS lifted, as if the sockets came from many addresses). A victim table (two seats,
both played here as fast as the rules allow, plus a ping every 0.1 s on one socket) runs all along. Each
round is a baseline phase (no attack) then an attack phase: ``--sockets`` sockets, each writing ping
messages of 16,000 bytes (just under WS_MAX_MESSAGE_BYTES) compressed to about 60 bytes, thousands per
write, as fast as the server reads them; a socket the server closes (the flood guard: 1008) opens again
after ``--backoff`` seconds. The server's resident memory is sampled every 0.1 s from /proc.

Prints per phase: the server's peak resident memory and its rise over the baseline phase before it; the
victim's move latency (action sent to its ack) and ping latency (ping to pong), p50 and p99; then the
medians over the rounds and the attack/baseline ratios. Targets (issue 23): the peak rises by at most
50 MB, the victim's latencies unchanged.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.load import choose, cpu_seconds, percentile  # noqa: E402
from tests.api.wsclient import free_port  # noqa: E402
from tests.security.deflate_flood import DeflateFlooder, padded_ping, rss_kib  # noqa: E402
from tests.server_process import server_env, start, stop_process, wait_ready  # noqa: E402

MESSAGE_BYTES = 16000
PER_WRITE = 4000  # messages per write: about 240 KB on the wire, 64 MB inflated
THINK_S = 0.1  # before each move: a quick player (with the pings, well under the message rate)


@dataclass
class Phase:
    name: str
    move_ms: list[float] = field(default_factory=list)
    ping_ms: list[float] = field(default_factory=list)
    rss_kib: list[int] = field(default_factory=list)
    connections: int = 0
    sent_bytes: int = 0
    closes: collections.Counter[str] = field(default_factory=collections.Counter)
    errors: collections.Counter[str] = field(default_factory=collections.Counter)  # the victim's
    server_cpu: float = 0.0  # the server's CPU seconds in the phase
    loop_lag: dict[str, float] = field(default_factory=dict)  # the server's event-loop lag samples, by bucket


def both_here(msg: dict[str, Any]) -> bool:
    return sum(seat["connected"] for seat in msg["room"]["seats"]) == 2


class Run:
    def __init__(self, base: str, pid: int) -> None:
        self.base, self.pid = base, pid
        self.ws = base.replace("http", "ws", 1) + "/ws/"
        self.phase = Phase("warm-up")
        self.stop = asyncio.Event()

    # ----- the victim table --------------------------------------------------------------------------

    async def victim(self) -> None:
        """Two-seat games, one after another, until the run stops."""
        while not self.stop.is_set():
            async with httpx.AsyncClient(base_url=self.base, timeout=10) as http:
                made = (await http.post("/api/rooms", json={"name": "Ann", "seats": 2})).json()
                joined = (await http.post(f"/api/rooms/{made['code']}/join", json={"name": "Bob"})).json()
            await asyncio.gather(
                self.player(made["code"], made["token"], 0), self.player(made["code"], joined["token"], 1)
            )

    async def player(self, code: str, token: str, seat: int) -> None:
        async with websockets.connect(self.ws + code, max_size=None) as sock:
            await sock.send(json.dumps({"type": "hello", "token": token}))
            sent: dict[str, float] = {}  # action id (or "ping") -> when it was sent
            pinger = asyncio.create_task(self.pings(sock, sent)) if seat == 0 else None
            started = seat != 0
            try:
                async for raw in sock:
                    msg = json.loads(raw)
                    kind, now = msg["type"], time.perf_counter()
                    if kind == "pong" and "ping" in sent:
                        self.phase.ping_ms.append((now - sent.pop("ping")) * 1000)
                    elif kind == "error":  # a move refused (say, rate_limited): play on from a fresh state
                        self.phase.errors[msg["code"]] += 1
                        await sock.send('{"type": "resync"}')
                    elif kind == "ack" and msg["id"] in sent:
                        self.phase.move_ms.append((now - sent.pop(msg["id"])) * 1000)
                    elif kind in ("state", "presence") and not started and both_here(msg):
                        started = True
                        await sock.send(json.dumps({"type": "start"}))
                    if kind != "state" or msg.get("game") is None:
                        continue
                    view = msg["game"]
                    if view["phase"] == "game_over" or self.stop.is_set():
                        return
                    if view["turn"] == seat and (move := choose(view)) is not None:
                        await asyncio.sleep(THINK_S)
                        action_id = uuid.uuid4().hex
                        sent[action_id] = time.perf_counter()
                        action = {
                            "type": "action",
                            "id": action_id,
                            "version": msg["version"],
                            "action": move,
                        }
                        await sock.send(json.dumps(action))
            finally:
                if pinger is not None:
                    pinger.cancel()

    async def pings(self, sock: Any, sent: dict[str, float]) -> None:
        """A ping every 0.1 s, one at a time."""
        while True:
            await asyncio.sleep(0.1)
            if "ping" not in sent:
                sent["ping"] = time.perf_counter()
                await sock.send('{"type": "ping"}')

    # ----- memory -------------------------------------------------------------------------------------

    async def sample(self) -> None:
        while not self.stop.is_set():
            self.phase.rss_kib.append(rss_kib(self.pid)["VmRSS"])
            await asyncio.sleep(0.1)


@dataclass
class Attack:
    connections: int = 0
    sent_bytes: int = 0
    closes: collections.Counter[str] = field(default_factory=collections.Counter)


async def attacker(ws_url: str, attack: Attack, until: asyncio.Event, backoff: float) -> None:
    """One socket flooding ``ws_url`` until ``until``; again ``backoff`` s after the server closes it."""
    blast = padded_ping(MESSAGE_BYTES)
    while not until.is_set():
        flooder = None
        try:
            flooder = await DeflateFlooder.connect(ws_url)
            attack.connections += 1
            while not until.is_set():
                await flooder.send(blast, PER_WRITE)
        except (OSError, ConnectionError, TimeoutError) as exc:
            attack.closes[type(exc).__name__] += 1
        finally:
            if flooder is not None:
                attack.sent_bytes += flooder.sent_bytes
                await flooder.close()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(until.wait(), backoff)


async def attack_for(ws_url: str, sockets: int, seconds: float, backoff: float) -> Attack:
    attack, until = Attack(), asyncio.Event()
    tasks = [asyncio.create_task(attacker(ws_url, attack, until, backoff)) for _ in range(sockets)]
    await asyncio.sleep(seconds)
    until.set()
    await asyncio.gather(*tasks)
    return attack


async def attack_process(ws_url: str, args: argparse.Namespace) -> Attack:
    """The attack from a process of its own, so that the victim's figures are the server's, not this
    process's event loop."""
    command = [sys.executable, __file__, "--attack", ws_url, "--sockets", str(args.sockets)]
    command += ["--seconds", str(args.seconds), "--backoff", str(args.backoff)]
    # At the lowest priority: on a small machine its loopback writes (tens of MB/s) compete for the CPU.
    proc = await asyncio.create_subprocess_exec(
        *command, stdout=asyncio.subprocess.PIPE, preexec_fn=lambda: os.nice(19)
    )
    out, _ = await proc.communicate()
    figures = json.loads(out)
    return Attack(figures["connections"], figures["sent_bytes"], collections.Counter(figures["closes"]))


async def loop_lag(http: httpx.AsyncClient) -> dict[str, float]:
    """The server's event-loop lag histogram (``threethirteen_event_loop_lag_seconds``): samples by bucket."""
    text = (await http.get("/metrics")).text
    buckets = {}
    for line in text.splitlines():
        if line.startswith("threethirteen_event_loop_lag_seconds_bucket"):
            bound = line.split('le="', 1)[1].split('"', 1)[0]
            buckets[bound] = float(line.rsplit(" ", 1)[1])
    return buckets


def lag_over(phase: Phase, bound: str) -> int:
    """Samples (one every 0.1 s) in which the server's event loop was more than ``bound`` s late."""
    return int(phase.loop_lag.get("+Inf", 0) - phase.loop_lag.get(bound, 0))


async def run(args: argparse.Namespace, base: str, pid: int) -> list[Phase]:
    bench = Run(base, pid)
    async with httpx.AsyncClient(base_url=base, timeout=10) as http:
        target = (await http.post("/api/rooms", json={"name": "Eve"})).json()["code"]
    background = [asyncio.create_task(bench.victim()), asyncio.create_task(bench.sample())]
    http = httpx.AsyncClient(base_url=base, timeout=30)
    await asyncio.sleep(3)  # warm-up: the first games, imports, caches
    phases: list[Phase] = []
    for _ in range(args.rounds):
        bench.phase = Phase("baseline")
        phases.append(bench.phase)
        cpu, lag = cpu_seconds(pid), await loop_lag(http)
        await asyncio.sleep(args.seconds)
        bench.phase.server_cpu, cpu = cpu_seconds(pid) - cpu, cpu_seconds(pid)
        bench.phase.loop_lag, lag = minus(await loop_lag(http), lag), await loop_lag(http)
        bench.phase = Phase("attack")
        phases.append(bench.phase)
        attack = await attack_process(bench.ws + target, args)
        bench.phase.server_cpu = cpu_seconds(pid) - cpu
        bench.phase.loop_lag = minus(await loop_lag(http), lag)
        bench.phase.connections, bench.phase.sent_bytes = attack.connections, attack.sent_bytes
        bench.phase.closes = attack.closes
        bench.phase.rss_kib.append(rss_kib(pid)["VmRSS"])
    bench.phase = Phase("after")
    phases.append(bench.phase)
    await asyncio.sleep(3)  # what the server still holds once the attackers are gone
    bench.stop.set()
    await http.aclose()
    for task in background:
        task.cancel()
    await asyncio.gather(*background, return_exceptions=True)
    return phases


def minus(after: dict[str, float], before: dict[str, float]) -> dict[str, float]:
    return {key: value - before.get(key, 0) for key, value in after.items()}


def mib(kib: float) -> float:
    return kib / 1024


def latencies(phase: Phase) -> dict[str, float]:
    return {
        "move p50": percentile(phase.move_ms, 0.5),
        "move p99": percentile(phase.move_ms, 0.99),
        "ping p50": percentile(phase.ping_ms, 0.5),
        "ping p99": percentile(phase.ping_ms, 0.99),
    }


def report(phases: list[Phase], peak_kib: int) -> None:
    heads = ("peak RSS", "rise", "move p50", "p99", "ping p50", "p99", "srv CPU", "lag>0.1s", "lag>1s")
    print(f"{'phase':9} " + " ".join(f"{h:>9}" for h in heads) + "  attack")
    rises: list[float] = []
    ratios: dict[str, list[float]] = collections.defaultdict(list)
    previous: Phase | None = None
    for phase in phases:
        peak = mib(max(phase.rss_kib, default=0))
        rise = ""
        figures = latencies(phase)
        if phase.name == "attack" and previous is not None:
            rises.append(peak - mib(max(previous.rss_kib)))
            rise = f"{rises[-1]:+.1f}"
            for key, value in latencies(previous).items():
                ratios[key].append(figures[key] / value)
        attack = ""
        if phase.name == "attack":
            closes = ", ".join(f"{k} {v}" for k, v in phase.closes.items())
            attack = f"{phase.connections} sockets opened, {phase.sent_bytes / 1e6:.1f} MB sent; {closes}"
        if phase.errors:
            attack += " victim's errors: " + ", ".join(f"{k} {v}" for k, v in phase.errors.items())
        cells = [f"{peak:.1f} MiB", rise] + [f"{value:.1f} ms" for value in figures.values()]
        cells += [f"{phase.server_cpu:.1f} s", str(lag_over(phase, "0.1")), str(lag_over(phase, "1.0"))]
        print(f"{phase.name:9} " + " ".join(f"{cell:>9}" for cell in cells) + f"  {attack}")
        previous = phase
    print(f"\nserver peak (VmHWM) over the whole run: {mib(peak_kib):.1f} MiB")
    rise = statistics.median(rises)
    print(f"peak rise during an attack (median of {len(rises)}): {rise:+.1f} MiB (target: <= 50)")
    for key, values in ratios.items():
        print(f"{key} attack/baseline (median of {len(values)}): {statistics.median(values):.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sockets", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--backoff", type=float, default=0.5, help="seconds before a closed socket reopens")
    parser.add_argument("--attack", metavar="WS_URL", help="(internal) only attack this room, print JSON")
    args = parser.parse_args()
    if args.attack:
        attack = asyncio.run(attack_for(args.attack, args.sockets, args.seconds, args.backoff))
        print(
            json.dumps(
                {"connections": attack.connections, "sent_bytes": attack.sent_bytes, "closes": attack.closes}
            )
        )
        return
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        log = Path(tmp) / "server.log"
        env = server_env(
            f"sqlite+aiosqlite:///{tmp}/memory.db",
            port,
            LOG_LEVEL="warning",
            MAX_MESSAGES_PER_SECOND="20",  # the documented default (server_env lifts it for tests)
            MAX_CONNECTS_PER_SECOND="100000",
            MAX_SOCKETS_PER_ADDRESS="100000",
            MAX_ROOMS_PER_ADDRESS="100000",
        )
        proc = start([sys.executable, "-m", "app"], env, log)
        try:
            wait_ready(proc, f"http://127.0.0.1:{port}", log, timeout=120)
            phases = asyncio.run(run(args, f"http://127.0.0.1:{port}", proc.pid))
            peak = rss_kib(proc.pid)["VmHWM"]
        finally:
            stop_process(proc)
    report(phases, peak)


if __name__ == "__main__":
    main()
