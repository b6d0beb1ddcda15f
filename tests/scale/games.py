"""Whole games over sockets spread across processes: people play what a bot would (the test moves for
them), bots and the grace timer are the servers' (the driver of whichever process holds the lease)."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

import websockets

from app.engine import GameState, action_from_dict, replay
from app.store import Store
from tests.api.wsclient import Client, create_room, join_room, pick_move, stored_game
from tests.ops.conftest import answer_or_close
from tests.reads import list_actions

from .cluster import Cluster

BOT_WAIT_SECONDS = 20  # longest wait for a server move (a takeover, Redis coming back)


@dataclass
class Table:
    """One table: host (seat 0) and seat 2 played by the test, seat 1 a bot, seat 3 a person who leaves
    early (the server plays for them once the grace period is over), and a spectator."""

    cluster: Cluster
    code: str
    game_id: int
    tokens: dict[int, str]
    clients: dict[int, Client]  # the sockets the test plays through, by seat
    spectator: Client
    acked: dict[str, int] = field(default_factory=dict)  # action id -> version its ack carried
    retired: list[Client] = field(default_factory=list)  # sockets closed by a crash, kept for their checks
    reconnects: int = 0
    server_waits: list[float] = field(default_factory=list)  # seconds each server move took to come

    @property
    def sockets(self) -> list[Client]:
        return [*self.clients.values(), self.spectator, *self.retired]


async def open_table(cluster: Cluster, placement: list[int]) -> Table:
    """A 4-seat table whose sockets sit on the processes ``placement`` (host, seat 2, seat 3, spectator)."""
    created = await create_room(cluster.base, "Ann", seats=4, bots=["normal"])
    code = created["code"]
    tokens = {0: created["token"]}
    for seat, name in ((2, "Bob"), (3, "Cyd")):
        tokens[seat] = (await join_room(cluster.base, code, name))["token"]
    sockets = {}
    for seat, process in zip((0, 2, 3), placement, strict=False):
        sockets[seat] = await Client.connect(cluster.direct(process), code)
        assert (await sockets[seat].hello(tokens[seat]))["seat"] == seat
    spectator = await Client.connect(cluster.direct(placement[3]), code)
    await spectator.hello()
    await sockets[0].send({"type": "start"})
    started = await sockets[0].until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")
    await sockets[3].close()  # seat 3 leaves: after GRACE_SECONDS the server plays its turns
    del sockets[3]
    return Table(cluster, code, started["room"]["game_id"], tokens, sockets, spectator)


async def reconnect(table: Table, seat: int | None) -> None:
    """The browser of ``seat`` (None: the spectator) lost its process: it reconnects through the balancer
    and resumes by version."""
    old = table.spectator if seat is None else table.clients[seat]
    table.retired.append(old)
    last = old.state["version"] if old.state else None
    hello = {"type": "hello", "last_version": last}
    if seat is not None:
        hello["token"] = table.tokens[seat]
    deadline = time.monotonic() + 15
    while True:
        try:
            client = await Client.connect(table.cluster.base, table.code)
            await client.send(hello)
            await client.next("welcome", timeout=5)
            break
        except (OSError, websockets.WebSocketException, TimeoutError):
            assert time.monotonic() < deadline, "could not reconnect through the balancer"
            await asyncio.sleep(0.1)
    if seat is None:
        table.spectator = client
    else:
        table.clients[seat] = client
    table.reconnects += 1


async def drive(table: Table, store: Store, stop: Callable[[GameState], bool] = lambda s: False) -> GameState:
    """Play the test's seats until the game is over (or ``stop``); wait for the servers' moves."""
    while True:
        version, state = await stored_game(store, table.game_id)
        if state.is_over or stop(state):
            return state
        client = table.clients.get(state.turn)
        if client is None:  # a bot, or the seat that left: a server's move
            waiting = time.monotonic()
            while (await stored_game(store, table.game_id))[0] == version:
                waited = time.monotonic() - waiting
                assert waited < BOT_WAIT_SECONDS, f"no server move at version {version} of {table.code}"
                await asyncio.sleep(0.01)
            table.server_waits.append(time.monotonic() - waiting)
            continue
        action_id = uuid.uuid4().hex
        message = {"type": "action", "id": action_id, "action": pick_move(state), "version": version}
        answer = await answer_or_close(client, message)
        if answer is None:  # its process died: reconnect elsewhere (the move may or may not have been made)
            await reconnect(table, state.turn)
        elif answer["type"] == "ack":
            assert answer["version"] == version + 1, answer
            table.acked[action_id] = answer["version"]
        else:  # another writer was first, or the database was away: look again
            assert answer["code"] in ("stale_version", "not_ready"), answer
            await asyncio.sleep(0.02)


async def check_finished(table: Table, store: Store, final: GameState) -> None:
    """Every acknowledged move is in the store once, at its version; the log replays to the stored state;
    the connected people were never played for; every socket saw versions only go up, and the end."""
    assert final.is_over
    actions = await list_actions(store, table.game_id)
    assert [a.seq for a in actions] == list(range(1, final.moves + 1))
    versions = [a.version for a in actions]
    assert versions == sorted(set(versions)), "one move per version"
    logged = {a.client_id: a.version for a in actions if a.client_id}
    assert len(logged) == len([a for a in actions if a.client_id]), "no move applied twice"
    assert all(logged.get(i) == v for i, v in table.acked.items()), "every acknowledged move is stored"
    assert all(a.client_id for a in actions if a.seat in (0, 2)), "a connected person was played for"
    assert any(a.client_id is None for a in actions if a.seat == 3), "the grace timer never played seat 3"
    moves = [(a.seat, action_from_dict(a.action)) for a in actions]
    assert replay(4, final.options, final.seed, moves) == final
    if table.spectator.closed.is_set():
        await reconnect(table, None)
    last = (await stored_game(store, table.game_id))[0]
    for client in [*table.clients.values(), table.spectator]:
        await client.wait_version(last, timeout=15)
    for client in table.sockets:
        seen = [m["version"] for m in client.received if m["type"] in ("state", "presence")]
        assert seen == sorted(seen), f"a socket got an older table after a newer one: {seen}"


async def close(table: Table) -> None:
    for client in table.sockets:
        await client.close()
