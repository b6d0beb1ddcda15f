"""The balancer in front of several processes (issue 38): Caddy hashes a table's code, taken from the path of
its socket (``/ws/<code>``) and of its REST calls (``/api/rooms/<code>...``), so every socket of a table lands
on one process, and the tables spread over the processes. When that process dies, each of its tables moves
with all its sockets to one survivor, and the game goes on within 3 s of the death. A balancer that does not
hash (round robin: a table's sockets on three processes) still plays correctly, only at more CPU a move.
One cluster for both (cluster start-ups are most of a scale test's time)."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.store import Store
from tests.api.wsclient import Client, create_room, join_room, pick_move, stored_game

from .cluster import Cluster, running_cluster

pytestmark = [pytest.mark.scale, pytest.mark.postgres, pytest.mark.xdist_group("scale")]

TABLES = 9  # all on one of 3 processes by chance: 3 x (1/3)^9, once in 6,561 runs
BOUND = 3.0  # seconds from a process's death until its table has acknowledged a move again
OPEN_SOCKETS = re.compile(r"^threethirteen_open_sockets ([0-9.]+)$", re.MULTILINE)


async def sockets_per_process(cluster: Cluster, alive: set[int]) -> dict[int, int]:
    """The sockets attached to a room in each live process, from its own /metrics."""
    counts = {}
    async with httpx.AsyncClient(timeout=5) as http:
        for index in sorted(alive):
            text = (await http.get(f"{cluster.direct(index)}/metrics")).text
            match = OPEN_SOCKETS.search(text)
            assert match is not None, text[:500]
            counts[index] = int(float(match.group(1)))
    return counts


async def where_they_land(cluster: Cluster, alive: set[int], connect: Any) -> dict[int, int]:
    """How many sockets ``connect()`` (which opens and greets them) added on each live process."""
    before = await sockets_per_process(cluster, alive)
    await connect()
    after = await sockets_per_process(cluster, alive)
    return {index: after[index] - before[index] for index in alive if after[index] != before[index]}


class Table:
    """Two people and a watcher, every socket opened through the balancer."""

    def __init__(self, code: str, tokens: list[str]) -> None:
        self.code, self.tokens = code, tokens
        self.sockets: list[Client] = []

    @classmethod
    async def open(cls, cluster: Cluster) -> Table:
        made = await create_room(cluster.base, "Ann", seats=2)
        joined = await join_room(cluster.base, made["code"], "Bob")
        assert joined["seat"] == 1
        return cls(made["code"], [made["token"], joined["token"]])

    async def connect(self, base: str) -> None:
        self.sockets = []
        for token in [*self.tokens, None]:
            client = await Client.connect(base, self.code)
            await client.hello(token)
            self.sockets.append(client)

    async def close(self) -> None:
        for client in self.sockets:
            await client.ws.close()


async def play_one_move(table: Table, store: Store, move_id: str) -> int:
    """The seat on turn plays what a bot would; the version every socket of the table then holds."""
    state = table.sockets[0].state
    assert state is not None and state["room"]["status"] == "playing"
    _, game = await stored_game(store, state["room"]["game_id"])
    seat = game.turn
    version = state["version"]
    move = {"type": "action", "id": move_id, "action": pick_move(game), "version": version}
    await table.sockets[seat].send(move)
    for client in table.sockets:
        await client.wait_version(version + 1, timeout=BOUND)
    return version + 1


async def test_a_tables_sockets_share_one_process_and_move_together_to_one_survivor(tmp_path: Path) -> None:
    async with running_cluster(tmp_path, processes=3) as (cluster, store):
        alive = {0, 1, 2}
        # Round robin first (a second Caddy in front of the same processes): a table's sockets on three
        # processes play all the same, only at more CPU a move.
        round_robin = cluster.another_balancer("round_robin")
        spread = await Table.open(cluster)
        landed = await where_they_land(cluster, alive, lambda: spread.connect(round_robin))
        assert sorted(landed.values()) == [1, 1, 1], landed
        await spread.sockets[0].send({"type": "start"})
        for client in spread.sockets:
            await client.until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")
        for index in range(12):
            version = await play_one_move(spread, store, f"rr-{index}")
            assert {client.state["version"] for client in spread.sockets if client.state} == {version}
        await spread.close()

        # The shipped policy: each table's sockets on one process, the tables spread over the three.
        tables, home = [], {}
        for _ in range(TABLES):
            table = await Table.open(cluster)
            landed = await where_they_land(cluster, alive, lambda t=table: t.connect(cluster.base))
            assert list(landed.values()) == [3], f"{table.code}: sockets per process {landed}"
            home[table.code] = next(iter(landed))
            tables.append(table)
        assert len(set(home.values())) >= 2, f"every table on one process: {home}"

        first = tables[0]
        await first.sockets[0].send({"type": "start"})
        for client in first.sockets:
            await client.until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")
        await play_one_move(first, store, "before")

        dead = home[first.code]
        cluster.kill(dead)
        killed_at = time.monotonic()
        alive.discard(dead)
        moved = [t for t in tables if home[t.code] == dead]
        for table in moved:  # each table's sockets reconnect through the balancer, as the client does
            landed = await where_they_land(cluster, alive, lambda t=table: t.connect(cluster.base))
            assert list(landed.values()) == [3], f"{table.code} after the death: {landed}"
            if table is first:
                await play_one_move(first, store, "after")
                assert time.monotonic() - killed_at < BOUND
        stayed = [t for t in tables if home[t.code] != dead]
        for table in stayed:  # untouched: still open where they were
            assert all(not client.closed.is_set() for client in table.sockets), table.code
        for table in tables:
            await table.close()
