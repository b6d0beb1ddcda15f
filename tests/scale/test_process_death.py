"""A process SIGKILLed right after it acknowledged a move (issue 22): the move is committed, but its notice
dies with the process. Every surviving socket of the table must hold that version within ``BOUND`` seconds, a
``hello`` or a REST read on any survivor must return it, the same action id resent to a survivor must get its
ack again, and the game must go on to its end. And a seat handed over at a round start through another
process gets its grace period from the hand-over, not from when some process loaded the room.

"The notice died with the process" is made certain, not a race: each process is a Redis user of its own,
whose PUBLISH is taken away (ACL) just before the move is sent, so its notice never reaches Redis while its
subscriptions and leases work on (a bare kill on the ack loses the notice in only some runs: the publisher
and the socket's writer race)."""

from __future__ import annotations

import asyncio
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis

from app.engine import GameState, action_from_dict, replay
from app.rooms.redis_link import lease_key
from app.store import Store
from tests.api.wsclient import Client, Message, create_room, join_room, pick_move, stored_game
from tests.reads import list_actions

from .cluster import Cluster, running_cluster

pytestmark = [pytest.mark.scale, pytest.mark.postgres, pytest.mark.xdist_group("scale")]

BOUND = 3.0  # seconds from a process's death until every surviving socket holds what it committed
# Kills per run: as many as find the bug these tests were written for. On the code before its fix, with the
# notice taken away for certain (below), nearly every kill failed: 18 of 21 in each of two runs, 8 of 9 in a
# 9-kill run, and every kill with a REST read (6 of 6). Six kills (each process twice, each right after its
# ack) all pass on that code about once in 100,000 runs (3 in 21 each); three with a REST read, each process
# once.
KILLS = 6
REST_KILLS = 3
SPECTATOR = None
Where = tuple[int, int | None]  # (process, seat or SPECTATOR)


@dataclass
class Table:
    """A table of people only (nothing but the test moves it), with a socket of every seat and a spectator
    on every process."""

    cluster: Cluster
    code: str
    game_id: int | str
    tokens: dict[int, str]
    sockets: dict[Where, Client]
    acked: dict[str, int] = field(default_factory=dict)  # action id -> the version of its ack
    closed: list[Client] = field(default_factory=list)

    def on(self, process: int) -> dict[Where, Client]:
        return {where: c for where, c in self.sockets.items() if where[0] == process}

    async def connect(self, process: int) -> None:
        """A socket of every seat and a spectator on ``process``, each after its hello."""
        for seat in [*self.tokens, SPECTATOR]:
            client = await Client.connect(self.cluster.direct(process), self.code)
            welcome = await client.hello(None if seat is None else self.tokens[seat])
            assert welcome["seat"] == seat
            self.sockets[(process, seat)] = client


async def open_table(cluster: Cluster, **options: Any) -> Table:
    created = await create_room(cluster.base, "Ann", seats=3, options=options)
    code = created["code"]
    tokens = {0: created["token"]}
    for name in ("Bob", "Cyd"):
        joined = await join_room(cluster.base, code, name)
        tokens[joined["seat"]] = joined["token"]
    table = Table(cluster, code, 0, tokens, {})
    for process in range(len(cluster.ports)):
        await table.connect(process)
    host = table.sockets[(0, 0)]
    await host.send({"type": "start"})
    started = await host.until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")
    table.game_id = started["room"]["game_id"]
    for client in table.sockets.values():
        await client.wait_version(started["version"])
    return table


def action(state: GameState, version: int) -> Message:
    return {"type": "action", "id": uuid.uuid4().hex, "action": pick_move(state), "version": version}


async def answer(client: Client, message: Message, timeout: float = 10) -> Message:
    """The ack or error that answers ``message`` (sent again by the caller's choice)."""
    await client.send(message)
    return await client.until(
        lambda m: m["type"] in ("ack", "error") and m.get("id") == message["id"], timeout
    )


async def rest_version(cluster: Cluster, process: int, code: str) -> int:
    async with httpx.AsyncClient(base_url=cluster.direct(process), timeout=5) as http:
        response = await http.get(f"/api/rooms/{code}/state")
        assert response.status_code == 200, response.text
        return int(response.json()["version"])


async def kill_after_ack(table: Table, store: Store, victim: int, *, rest_first: bool) -> list[str]:
    """The seat to play moves through its socket on ``victim``, whose notices can no longer reach Redis; the
    moment the ack and its state are in, ``victim`` is SIGKILLed. What the survivors got wrong, as text."""
    cluster = table.cluster
    version, state = await stored_game(store, table.game_id)
    move = action(state, version)
    mover = table.sockets[(victim, state.turn)]
    cluster.mute(victim)
    ack = await answer(mover, move)
    assert ack == {"type": "ack", "id": move["id"], "version": version + 1}, ack
    acked = ack["version"]
    await mover.wait_version(acked, timeout=5)  # the ack and its state: nothing else is awaited
    cluster.kill(victim)
    killed = time.monotonic()
    restarting = asyncio.ensure_future(asyncio.to_thread(cluster.restart, victim))
    table.acked[move["id"]] = acked
    survivors = [p for p in range(len(cluster.ports)) if p != victim]
    wrong: list[str] = []
    try:
        if rest_first:  # nothing has happened at the table since: a read must not serve the old cache
            for process in survivors:
                if (read := await rest_version(cluster, process, table.code)) != acked:
                    wrong.append(f"REST state on process {process}: version {read}, not {acked}")
        # Nothing else moves the table: every surviving socket must get the acknowledged version by itself.
        for where, client in sorted(table.sockets.items(), key=str):
            if where[0] == victim:
                continue
            try:
                await client.wait_version(acked, timeout=max(0.0, killed + BOUND - time.monotonic()))
            except TimeoutError:
                held = client.state["version"] if client.state else None
                wrong.append(f"socket {where}: version {held}, not {acked}, {BOUND:.0f} s after the kill")
        # The mover's browser reconnects to a survivor: its hello gets the table, its retry gets the ack.
        for process in survivors:
            retry = await Client.connect(cluster.direct(process), table.code)
            try:
                await retry.send({"type": "hello", "token": table.tokens[state.turn]})
                await retry.next("welcome")
                greeted = await retry.next("state")
                if greeted["version"] != acked:
                    wrong.append(f"hello on process {process}: version {greeted['version']}, not {acked}")
                again = await answer(retry, move)
                if again != ack:
                    wrong.append(f"resent action on process {process}: {again}, not {ack}")
            finally:
                await retry.close()
    finally:
        await restarting
    for where in [w for w in table.sockets if w[0] == victim]:
        table.closed.append(table.sockets.pop(where))
    await table.connect(victim)
    for client in table.sockets.values():  # (today's code caught up through the retries)
        await client.wait_version(acked)
    return wrong


async def play_to_end(table: Table, store: Store) -> GameState:
    """The people play on, each move through a socket on the next process in turn, made against the table
    that socket was shown (as a browser does)."""
    processes = len(table.cluster.ports)
    while True:
        version, state = await stored_game(store, table.game_id)
        if state.is_over:
            return state
        move = action(state, version)
        client = table.sockets[(state.moves % processes, state.turn)]
        await client.wait_version(version)
        ack = await answer(client, move)
        assert ack == {"type": "ack", "id": move["id"], "version": version + 1}, ack
        table.acked[move["id"]] = ack["version"]


async def check_finished(table: Table, store: Store, final: GameState) -> None:
    """Every acknowledged move stored once at its version; the log replays to the stored state; every socket
    ends on the last version."""
    assert final.is_over
    actions = await list_actions(store, table.game_id)
    logged = {a.client_id: a.version for a in actions if a.client_id}
    assert len(logged) == len(actions), "a move applied twice (or played by the server)"
    assert {i: logged.get(i) for i in table.acked} == table.acked, "an acknowledged move is not stored"
    moves = [(a.seat, action_from_dict(a.action)) for a in actions]
    assert replay(len(table.tokens), final.options, final.seed, moves) == final
    last = (await stored_game(store, table.game_id))[0]
    for client in table.sockets.values():
        await client.wait_version(last)
    for client in [*table.sockets.values(), *table.closed]:
        seen = [m["version"] for m in client.received if m["type"] in ("state", "presence")]
        assert seen == sorted(seen), f"a socket got an older table after a newer one: {seen}"
        await client.close()


def summary(wrong: dict[int, list[str]], kills: int) -> str:
    kinds = ("socket", "hello", "resent", "REST")
    counts = {k: sum(any(w.startswith(k) for w in ws) for ws in wrong.values()) for k in kinds}
    said = ", ".join(f"{k} wrong after {n}/{kills} kills" for k, n in counts.items() if n)
    first = next(iter(wrong.items()))
    right = [k for k in range(kills) if k not in wrong]
    return f"{said} (all right after kills {right}); e.g. kill {first[0]}: {first[1]}"


# On a Redis Cluster (its SPUBLISH taken away as PUBLISH is), each process killed once: what differs there is
# how notices travel, which one kill per process covers; the six kills' odds are the single server's to hold.
@pytest.mark.parametrize(("kind", "kills"), [("single", KILLS), ("cluster", 3)])
async def test_every_survivor_holds_a_move_acknowledged_just_before_its_process_died(
    tmp_path: Path, kind: str, kills: int
) -> None:
    async with running_cluster(tmp_path, redis_kind=kind) as (cluster, store):
        table = await open_table(cluster)
        wrong: dict[int, list[str]] = {}
        for kill in range(kills):
            if found := await kill_after_ack(table, store, kill % 3, rest_first=False):
                wrong[kill] = found
        assert not wrong, summary(wrong, kills)
        final = await play_to_end(table, store)
        await check_finished(table, store, final)


async def test_a_rest_read_on_a_survivor_returns_the_acknowledged_move_with_no_turn_timer(
    tmp_path: Path,
) -> None:
    async with running_cluster(tmp_path) as (cluster, store):
        table = await open_table(cluster, turn_timer=0)  # nothing but the players would move the table
        wrong: dict[int, list[str]] = {}
        for kill in range(REST_KILLS):
            if found := await kill_after_ack(table, store, kill % 3, rest_first=True):
                wrong[kill] = found
        assert not wrong, summary(wrong, REST_KILLS)
        final = await play_to_end(table, store)
        await check_finished(table, store, final)


GRACE = 4  # seconds a person given a seat has to connect before the server plays for them


def seat_shown(client: Client, seat: int) -> dict[str, Any]:
    assert client.state is not None
    return dict(client.state["room"]["seats"][seat])


async def next_server_move(store: Store, game_id: int | str, moves: int, seconds: float) -> float:
    """Wait for the game to move on from ``moves`` by itself; when it did (monotonic seconds)."""
    deadline = time.monotonic() + seconds
    while (await stored_game(store, game_id))[1].moves == moves:
        assert time.monotonic() < deadline, f"no server move after move {moves} within {seconds} s"
        await asyncio.sleep(0.01)
    return time.monotonic()


async def test_a_seat_handed_over_at_a_round_start_through_another_process(tmp_path: Path) -> None:
    """Process 0 drives the table (it holds the lease) and loaded the room long ago; the host approves a
    request through process 1 at a round start, so the seat passes at once, committed by process 1; the
    asker (on process 2) has gone by then. Process 0 must give the new holder the grace period from the
    hand-over, not from when it loaded the room; once the holder says hello on any process, every socket
    shows them connected and nobody plays for them."""
    async with running_cluster(tmp_path, GRACE_SECONDS=str(GRACE)) as (cluster, store):
        created = await create_room(cluster.base, "Ann", seats=3, bots=["normal"])
        code, bot = created["code"], 1
        bob = await join_room(cluster.base, code, "Bob")
        tokens = {0: created["token"], bob["seat"]: bob["token"]}
        on_driver = {seat: await Client.connect(cluster.direct(0), code) for seat in tokens}
        for seat, client in on_driver.items():
            await client.hello(tokens[seat])
        loaded_at = time.monotonic()
        await on_driver[0].send({"type": "start"})
        started = await on_driver[0].until(
            lambda m: m["type"] == "state" and m["room"]["status"] == "playing"
        )
        game_id = started["room"]["game_id"]

        async def play(sockets: dict[int, Client], until: Any) -> GameState:
            """People move through ``sockets``; the bot's moves are waited for; until ``until(state)``."""
            while True:
                loaded = await store.load_table(code)  # the room's version: seat changes move it too
                assert loaded is not None and loaded.table.game is not None
                version, state = loaded.table.version, loaded.table.game
                if until(state):
                    return state
                if state.turn not in sockets:
                    await next_server_move(store, game_id, state.moves, 15)
                    continue
                move = action(state, version)
                ack = await answer(sockets[state.turn], move)
                assert ack["type"] == "ack", ack

        # The bot moves while only process 0 has sockets: process 0 takes the lease (and keeps it).
        await play(on_driver, lambda s: any(seat == bot for seat, _, _ in s.round_log))
        probe = aioredis.from_url(cluster.redis.url)
        try:
            assert await probe.get(lease_key(code)) is not None, "process 0 holds the table's lease"
        finally:
            await probe.aclose()
        host = await Client.connect(cluster.direct(1), code)
        await host.hello(tokens[0])
        watcher = await Client.connect(cluster.direct(1), code)
        await watcher.hello()
        bob_elsewhere = await Client.connect(cluster.direct(2), code)
        await bob_elsewhere.hello(tokens[bob["seat"]])
        asker = await Client.connect(cluster.direct(2), code)
        await asker.hello()
        await asker.send({"type": "request_seat", "seat": bot, "name": "Dee"})
        dee_token = (await asker.next("seat_requested"))["token"]
        everyone = [*on_driver.values(), host, watcher, bob_elsewhere]

        # Process 0 loaded the room longer than a grace period ago; then a round starts with a person to move.
        await asyncio.sleep(max(0.0, loaded_at + GRACE + 0.5 - time.monotonic()))
        people = {0: host, bob["seat"]: bob_elsewhere}
        await play(people, lambda s: s.round >= 2 and not s.round_log and s.turn != bot)
        await host.send({"type": "approve_seat", "seat": bot})
        handed = await host.until(lambda m: m["type"] == "state" and not m["room"]["seats"][bot]["bot"])
        handed_at = time.monotonic()
        assert (await asker.next("welcome"))["seat"] == bot
        await asker.close()  # Dee's browser is gone: the seat is theirs, the server plays it after the grace

        turn = await play(people, lambda s: s.turn == bot)
        played_at = await next_server_move(store, game_id, turn.moves, GRACE + 15)
        waited = played_at - handed_at
        # (the hand-over was committed before the host's socket heard of it: at most that much earlier)
        assert waited > GRACE - 1, (
            f"the server played Dee's seat {waited:.1f} s after it was handed over (grace: {GRACE} s)"
        )
        actions = await list_actions(store, game_id)
        assert [a.client_id for a in actions if a.version > handed["version"] and a.seat == bot][:1] == [None]

        # Dee comes back through process 1 (not where she asked): every socket shows her connected.
        dee = await Client.connect(cluster.direct(1), code)
        assert (await dee.hello(dee_token))["seat"] == bot
        back = time.monotonic()
        for client in [*everyone, dee]:
            while seat_shown(client, bot)["connected"] is not True or seat_shown(client, bot)["auto"]:
                assert time.monotonic() < back + BOUND, f"seat {bot} shown as {seat_shown(client, bot)}"
                await asyncio.sleep(0.02)
        since, now = await stored_game(store, game_id)
        await play({**people, bot: dee}, lambda s: s.moves > now.moves + 6)  # every seat's turn came
        later = [a for a in await list_actions(store, game_id) if a.version > since and a.seat == bot]
        assert later and all(a.client_id for a in later), "the server played for Dee while she was connected"
        for client in [*everyone, dee]:
            await client.close()
