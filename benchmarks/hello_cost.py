"""What a page's hello costs at the longest round: eight seats, 799 moves of a round (the turn limit ends it
with the 800th), a few chat lines.

Plays the round through ``Room.handle`` on SQLite (or PostgreSQL), then reports (medians, wall time):

- ``load``: ``Store.load_table`` (what a restart, or another process's first look at the table, costs: the
  round replayed from its snapshot, the round's moves with it),
- ``first hello``: a spectator's hello on a freshly loaded room (the round's moves made into the protocol's
  models once, the chat read from the store),
- ``hello``: a spectator's hello after that (the moves' models kept; one read of the chat),
- ``hello where played``: a spectator's hello on the process that played the round,
- the welcome's size in bytes and the moves and chat lines it holds.

    python benchmarks/hello_cost.py               # SQLite in a temporary directory
    python benchmarks/hello_cost.py --postgres    # TEST_POSTGRES_URL (a fresh schema)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.config import Settings  # noqa: E402
from app.protocol import parse_client_message  # noqa: E402
from app.rooms import Connection, Room, RoomManager  # noqa: E402
from app.store import Store, run_migrations  # noqa: E402
from benchmarks.load import reset_postgres  # noqa: E402

SEATS = 8
MOVES = 799
HELLOS = 200


async def say(room: Room, conn: Connection, message: dict[str, Any]) -> list[str]:
    await room.handle(conn, parse_client_message(json.dumps(message)))
    return conn.drain()


async def play_round(manager: RoomManager) -> str:
    room, token = await manager.create(name="P0", seat_count=SEATS, bots=[], options={})
    tokens = [token]
    for i in range(1, SEATS):
        _, token = await room.join(f"P{i}")
        assert token is not None
        tokens.append(token)
    players = [Connection(max_queue=10_000) for _ in range(SEATS)]
    for conn, token in zip(players, tokens, strict=True):
        await say(room, conn, {"type": "hello", "token": token})
    await say(room, players[0], {"type": "start"})
    for i in range(3):
        await say(room, players[i], {"type": "chat", "text": f"good luck, everyone ({i})"})
    for _ in range(MOVES):
        game = room.table.game
        assert game is not None
        if game.phase == "draw":
            action: dict[str, Any] = {"type": "draw", "source": "stock"}
        else:
            action = {"type": "discard", "card": str(game.drawn)}
        message = {"type": "action", "id": f"m-{game.moves}", "version": room.table.version, "action": action}
        await say(room, players[game.turn], message)
        for conn in players:
            conn.drain()
    return room.code


async def timed_hello(room: Room) -> tuple[float, float]:
    """(wall, CPU) seconds of one spectator's hello."""
    conn = Connection(max_queue=100)
    started, cpu = time.perf_counter(), time.process_time()
    await room.handle(conn, parse_client_message('{"type": "hello"}'))
    took = (time.perf_counter() - started, time.process_time() - cpu)
    conn.drain()
    await room.detach(conn)
    return took


def median_ms(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:.2f} ms"


def wall_cpu(samples: list[tuple[float, float]]) -> str:
    return f"{median_ms([w for w, _ in samples])} wall, {median_ms([c for _, c in samples])} CPU"


async def main(url: str) -> None:
    await run_migrations(url)
    settings = Settings(_env_file=None, database_url=url)  # type: ignore[call-arg]
    store = Store(url)
    manager = RoomManager(store=store, settings=settings)
    code = await play_round(manager)
    played = await manager.get(code)
    assert played is not None
    where_played = [await timed_hello(played) for _ in range(HELLOS)]
    await manager.close()

    loads = []
    for _ in range(20):
        started = time.perf_counter()
        loaded = await store.load_table(code)
        loads.append(time.perf_counter() - started)
        assert loaded is not None
    firsts: list[tuple[float, float]] = []
    hellos: list[tuple[float, float]] = []
    for attempt in range(5):
        again = RoomManager(store=store, settings=settings)  # a restarted process
        room = await again.get(code)
        assert room is not None
        firsts.append(await timed_hello(room))
        if attempt == 0:
            hellos = [await timed_hello(room) for _ in range(HELLOS)]
            conn = Connection(max_queue=100)
            await room.handle(conn, parse_client_message('{"type": "hello"}'))
            text = conn.drain()[0]
        await again.close()
    await store.close()
    welcome = json.loads(text)
    print(f"{SEATS} seats, {MOVES} moves of the round, {url.split(':')[0]}")
    print(f"load_table:  {median_ms(loads)}")
    print(f"first hello: {wall_cpu(firsts)}")
    print(f"hello:       {wall_cpu(hellos)}")
    print(f"hello where played: {wall_cpu(where_played)}")
    print(
        f"welcome: {len(text.encode()):,} bytes, {len(welcome.get('moves', []))} moves, "
        f"{len(welcome.get('chat', []))} chat lines"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--postgres", action="store_true", help="use TEST_POSTGRES_URL instead of SQLite")
    args = parser.parse_args()
    if args.postgres:
        import os

        pg = os.environ.get("TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test")
        reset_postgres(pg)
        asyncio.run(main(pg))
    else:
        with tempfile.TemporaryDirectory() as folder:
            asyncio.run(main(f"sqlite+aiosqlite:///{folder}/hello.db"))
