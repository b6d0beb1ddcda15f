"""Server CPU per accepted move, in process: where the time of one action goes, without sockets or a client.

Plays whole 4-seat games through ``Room.handle`` (parse → engine → commit → ack → per-seat views) with
four socket-less connections, and reports the CPU time of each part per action (medians and means):

- ``engine``: ``apply`` alone (the baseline: the rules themselves),
- ``commit``: ``Store.commit`` (one transaction),
- ``render``: building and encoding the state messages of all four seats (``render.send_states``),
- ``total``: the whole ``Room.handle`` call,
- ``deflate``: what permessage-deflate (``WS_COMPRESSION``) would add: the messages of the move compressed
  per socket as the server's WebSocket layer does (``app.api.ws_deflate``: zlib with its window bits and
  memLevel, one context per socket).

It also prints the bytes of a state message, as JSON and deflated, and the frames each move sends.

The sockets say hello with ``"acks": "in_state"`` (as the browser client and ``examples/bot.py`` do): the
mover's ack comes inside its state, 4 frames a move; ``--acks frame`` says nothing of acks, as older clients,
and the mover gets a separate ack message first (5 frames a move).

    python benchmarks/action_cost.py --games 20              # SQLite in a temporary directory
    python benchmarks/action_cost.py --games 20 --postgres   # TEST_POSTGRES_URL (a fresh schema)
    python benchmarks/action_cost.py --games 20 --acks frame # the clients before acks in the state

CPU time is the process's own (``time.process_time``), so other work on a shared machine barely moves it;
the PostgreSQL server's own work is not in it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
import zlib
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.api.ws_deflate import MEM_LEVEL, SERVER_WINDOW_BITS  # noqa: E402
from app.config import Settings  # noqa: E402
from app.engine import game as game_module  # noqa: E402
from app.protocol import parse_client_message  # noqa: E402
from app.rooms import Connection, RoomManager  # noqa: E402
from app.rooms import render as render_module  # noqa: E402
from app.store import Store, run_migrations  # noqa: E402
from app.table import commands as commands_module  # noqa: E402
from benchmarks.load import choose, reset_postgres  # noqa: E402

PARTS: dict[str, list[float]] = defaultdict(list)


def timed(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a function (sync or async) so each call's CPU time is added to the current action's part."""
    if asyncio.iscoroutinefunction(func):

        async def run_async(*args: Any, **kwargs: Any) -> Any:
            t0 = time.process_time()
            try:
                return await func(*args, **kwargs)
            finally:
                CURRENT[name] = CURRENT.get(name, 0.0) + time.process_time() - t0

        return run_async

    def run(*args: Any, **kwargs: Any) -> Any:
        t0 = time.process_time()
        try:
            return func(*args, **kwargs)
        finally:
            CURRENT[name] = CURRENT.get(name, 0.0) + time.process_time() - t0

    return run


CURRENT: dict[str, float] = {}


SIZES: dict[str, list[int]] = defaultdict(list)  # "json" and "deflated" bytes of each state message
FRAMES: list[int] = []  # the frames each move sent, every socket's together
KINDS: dict[str, list[tuple[float, float]]] = defaultdict(list)  # (total, commit) seconds by kind
DEFLATERS: dict[Connection, Any] = {}  # one compression context per socket, as permessage-deflate keeps


def deflated(conn: Connection, text: str) -> int:
    """Bytes of ``text`` as permessage-deflate sends it on ``conn`` (the server's settings)."""
    deflater = DEFLATERS.get(conn)
    if deflater is None:
        deflater = DEFLATERS[conn] = zlib.compressobj(wbits=-SERVER_WINDOW_BITS, memLevel=MEM_LEVEL)
    data = text.encode()
    return len(deflater.compress(data) + deflater.flush(zlib.Z_SYNC_FLUSH)) - 4


def drain(conns: list[Connection]) -> tuple[list[list[dict[str, Any]]], float, int]:
    """Each socket's messages since the last call, the CPU seconds their compression took, and how many."""
    messages: list[list[dict[str, Any]]] = []
    spent, frames = 0.0, 0
    for conn in conns:
        texts = conn.drain()
        frames += len(texts)
        t0 = time.process_time()
        sizes = [deflated(conn, text) for text in texts]
        spent += time.process_time() - t0
        messages.append([json.loads(text) for text in texts])
        for text, size in zip(texts, sizes, strict=True):
            if text.startswith('{"type":"state"'):
                SIZES["json"].append(len(text.encode()))
                SIZES["deflated"].append(size)
    return messages, spent, frames


async def play_games(database_url: str, games: int, acks: str = "in_state") -> int:
    await run_migrations(database_url)
    store = Store(database_url)
    settings = Settings(_env_file=None, database_url=database_url, round_break_seconds=0)  # type: ignore[call-arg]
    manager = RoomManager(store=store, settings=settings)
    # instrument after the imports: the room calls these through its module and its store
    commands_module.apply = timed("engine", game_module.apply)  # type: ignore[attr-defined]
    store.commit = timed("commit", store.commit)  # type: ignore[method-assign]
    render_module.send_states = timed("render", render_module.send_states)  # type: ignore[attr-defined]
    actions = 0
    for _ in range(games):
        room, token = await manager.create(name="p0", seat_count=4, bots=[], options={})
        tokens = [token] + [(await room.join(f"p{k}"))[1] for k in range(1, 4)]
        conns = [Connection(max_queue=100_000) for _ in range(4)]
        views: list[dict[str, Any] | None] = [None] * 4
        for seat, conn in enumerate(conns):
            hello = {"type": "hello", "token": tokens[seat]}
            if acks != "frame":
                hello["acks"] = acks
            await room.handle(conn, parse_client_message(json.dumps(hello)))
        await room.handle(conns[0], parse_client_message('{"type": "start"}'))
        moved = False
        while True:
            every_seat, spent, frames = drain(conns)
            if moved:
                PARTS["deflate"].append(spent)
                FRAMES.append(frames)
            for seat, messages in enumerate(every_seat):
                for message in messages:
                    if message["type"] == "state":
                        views[seat] = message["game"]
            view = views[0]
            assert view is not None
            if view["phase"] == "game_over":
                break
            seat = view["turn"]
            seat_view = views[seat]
            assert seat_view is not None
            move = choose(seat_view)
            assert move is not None
            raw = json.dumps(
                {"type": "action", "id": uuid.uuid4().hex, "version": room.table.version, "action": move}
            )
            CURRENT.clear()
            round_before = view["round"]
            t0 = time.process_time()
            await room.handle(conns[seat], parse_client_message(raw))
            spent = time.process_time() - t0
            PARTS["total"].append(spent)
            for name in ("engine", "commit", "render"):
                PARTS[name].append(CURRENT.get(name, 0.0))
            game = room.table.game
            ended = game is None or game.is_over or game.round != round_before
            kind = "that ends a round" if ended else "within a round"
            KINDS[kind].append((spent, CURRENT.get("commit", 0.0)))
            actions += 1
            moved = True
    await manager.close()
    await store.close()
    return actions


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--postgres", action="store_true", help="use TEST_POSTGRES_URL instead of SQLite")
    parser.add_argument(
        "--acks",
        choices=["in_state", "frame"],
        default="in_state",
        help="what the sockets' hello says of acks (frame: nothing, as clients before the field)",
    )
    args = parser.parse_args()
    if args.postgres:
        url = os.environ.get("TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test")
        reset_postgres(url)
    else:
        url = f"sqlite+aiosqlite:///{tempfile.mkdtemp()}/cost.db"
    started = time.perf_counter()
    actions = asyncio.run(play_games(url, args.games, args.acks))
    wall = time.perf_counter() - started
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}; db: {url.split(':')[0]}")
    print(f"{args.games} games, {actions} actions, {wall:.1f} s wall; acks: {args.acks}")
    engine_median = statistics.median(PARTS["engine"])
    for name in ("engine", "commit", "render", "total", "deflate"):
        values = [v * 1000 for v in PARTS[name]]
        median = statistics.median(values)
        print(
            f"{name:7} median {median:6.3f} ms  mean {statistics.fmean(values):6.3f} ms  "
            f"p99 {sorted(values)[int(0.99 * len(values))]:6.3f} ms  "
            f"({median / (engine_median * 1000):5.1f}x engine)"
        )
    raw, packed = statistics.median(SIZES["json"]), statistics.median(SIZES["deflated"])
    print(f"state message: median {raw:.0f} bytes of JSON, {packed:.0f} deflated ({raw / packed:.1f}x less)")
    for kind, pairs in KINDS.items():
        totals, commits = [1000 * t for t, _ in pairs], [1000 * c for _, c in pairs]
        print(
            f"a move {kind}: {len(pairs)}, total median {statistics.median(totals):.3f} ms, "
            f"commit median {statistics.median(commits):.3f} ms"
        )
    print(f"frames per move: mean {statistics.fmean(FRAMES):.2f} (every socket's, the mover's ack included)")


if __name__ == "__main__":
    main()
