"""A paced table's deadline on real processes (issue 35): three ``python -m app`` processes behind Caddy, with
Redis and PostgreSQL, whose clocks a file moves on (``CLOCK_OFFSET_FILE``) so that an hour passes at once.
When a turn's time runs out with nobody connected, exactly one process plays it (the lease and the version
fence), and the move acknowledged before stays in the log; when every process is SIGKILLed and the next
deadline passes while none runs, a process started afterwards finds the table in the store and plays it. Both
seats' devices are subscribed to turn notifications (a test push service): each turn that finds its person
away is notified exactly once, whichever of the three processes looks first, and never while their socket
is open on any process."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.engine import action_from_dict, replay
from app.store import Store
from tests.api.wsclient import Client, create_room, join_room, pick_move, stored_game
from tests.push_service import PushService, push_service
from tests.reads import list_actions

from .cluster import Cluster, running_cluster

pytestmark = [pytest.mark.scale, pytest.mark.postgres, pytest.mark.xdist_group("scale")]

HOUR = 3600


async def server_turn(store: Store, game_id: int | str, after: int, seconds: float = 30) -> list[Any]:
    """The game's log once the server has played a turn's discard (or going out) after move ``after``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        actions = await list_actions(store, game_id)
        if any(a.seq > after and a.client_id is None and a.action["type"] != "draw" for a in actions):
            await asyncio.sleep(1.0)  # a second play of the same turn, were there one, would be in by now
            return await list_actions(store, game_id)
        await asyncio.sleep(0.1)
    raise AssertionError(f"no server move after {after} within {seconds} s")


def check_log(actions: list[Any], first_seat: int, acked: str) -> None:
    """One move per seq, the acknowledged one kept; every turn ends once (no move played twice)."""
    assert [a.seq for a in actions] == list(range(1, len(actions) + 1)), actions
    assert actions[0].client_id == acked and actions[0].seat == first_seat
    ends = [a for a in actions if a.action["type"] != "draw"]
    assert len({(a.seat, a.seq) for a in ends}) == len(ends)


async def notified(service: PushService, counts: dict[int, int]) -> None:
    """Wait until each seat's device has had ``counts[seat]`` "your turn" notifications, then a little more:
    a second notification of one turn, were one sent by another process, would be in by then."""
    deadline = time.monotonic() + 30
    while any(len(service.at(f"seat-{seat}")) < count for seat, count in counts.items()):
        assert time.monotonic() < deadline, {seat: len(service.at(f"seat-{seat}")) for seat in counts}
        await asyncio.sleep(0.1)
    await asyncio.sleep(1.5)  # five looks of every process (PACE_WAKE_SECONDS)
    assert {seat: len(service.at(f"seat-{seat}")) for seat in counts} == counts
    for seat in counts:
        assert all(n.payload["title"] == "Your turn at Ann’s table" for n in service.at(f"seat-{seat}"))


async def test_a_paced_turn_runs_out_on_three_processes_and_after_every_process_died(tmp_path: Path) -> None:
    offset = tmp_path / "clock-offset"
    offset.write_text("0")
    with push_service() as service:
        env = {
            "CLOCK_OFFSET_FILE": str(offset),
            "PACE_WAKE_SECONDS": "0.3",
            "PUSH_ALLOWED_HOSTS": f"127.0.0.1:{service.port}",
        }
        async with running_cluster(tmp_path, processes=3, **env) as (cluster, store):
            await play_on_three_processes(cluster, store, offset, service)


async def play_on_three_processes(cluster: Cluster, store: Store, offset: Path, service: PushService) -> None:
    made = await create_room(cluster.base, "Ann", seats=2, options={"pace": 1})
    code, tokens = made["code"], {0: made["token"]}
    joined = await join_room(cluster.base, code, "Bob")
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
    clients = [await Client.connect(cluster.direct(i), code) for i in range(2)]
    for seat, client in enumerate(clients):
        await client.hello(tokens[seat])
    await clients[0].send({"type": "start"})
    started = await clients[0].until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")
    game_id = started["room"]["game_id"]
    turn = started["game"]["turn"]
    _, state = await stored_game(store, game_id)
    move = {
        "type": "action",
        "id": "acked-draw",
        "action": pick_move(state),
        "version": started["version"],
    }
    await clients[turn].send(move)
    ack = await clients[turn].until(lambda m: m["type"] == "ack" and m.get("id") == "acked-draw")
    assert ack["version"] == started["version"] + 1
    await asyncio.sleep(1.0)  # every process has looked (their sockets are open: nobody is notified)
    assert service.received == []
    for client in clients:
        await client.close()
    counts = {turn: 1, 1 - turn: 0}  # the "your turn" each seat's device should have had
    await notified(service, counts)  # away now, and on turn

    # Nobody connected; the hour passes on every process at once: exactly one plays the turn's end.
    offset.write_text(str(HOUR + 5))
    actions = await server_turn(store, game_id, after=1)
    check_log(actions, turn, "acked-draw")
    assert [a.client_id for a in actions[1:]] == [None] * (len(actions) - 1)
    played = len(actions)
    counts[(await stored_game(store, game_id))[1].turn] += 1
    await notified(service, counts)  # the next turn's person is told, by one of the three

    # Every process dies; the next turn's hour passes while none runs; one process comes back.
    for index in range(3):
        cluster.kill(index)
    offset.write_text(str(2 * HOUR + 10))
    await asyncio.to_thread(cluster.restart, 0)
    actions = await server_turn(store, game_id, after=played)
    check_log(actions, turn, "acked-draw")
    _, stored = await stored_game(store, game_id)
    moves = [(a.seat, action_from_dict(a.action)) for a in actions]
    assert replay(2, stored.options, stored.seed, moves) == stored, "the log replays to the stored game"
    counts[stored.turn] += 1
    await notified(service, counts)  # told by the process started after the deaths
