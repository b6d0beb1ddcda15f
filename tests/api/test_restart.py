"""Kill the real server process with SIGKILL mid-round, start it again, and finish the game: nothing lost."""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from app.engine import GameState, action_from_dict, replay
from app.store import Store
from tests.reads import list_actions
from tests.server_process import start_server_process, stop_process

from .wsclient import Client, create_room, free_port, join_room, pick_move, stored_game


async def drive(
    clients: dict[int, Client],
    store: Store,
    game_id: int,
    acked: dict[str, tuple[int, int]],
    stop: Callable[[GameState], bool],
) -> GameState:
    """People play what a bot would; bot seats are left to the server. Returns the state at ``stop``."""
    while True:
        version, state = await stored_game(store, game_id)
        if state.is_over or stop(state):
            return state
        if state.turn in clients:
            answer = await clients[state.turn].act(pick_move(state), version=version)
            assert answer["type"] == "ack", answer
            assert answer["version"] == version + 1
            acked[answer["id"]] = (state.turn, answer["version"])
        else:
            deadline = time.monotonic() + 10
            while (await stored_game(store, game_id))[0] == version:
                assert time.monotonic() < deadline, "the bot did not move"
                await asyncio.sleep(0.005)


@pytest.mark.slow
async def test_sigkill_mid_round_then_restart_and_finish(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'restart.db'}"
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = tmp_path / "server.log"
    proc = start_server_process(url, port, log, LOG_LEVEL="warning")
    store = Store(url)
    try:
        created = await create_room(base, "Ann", seats=3, bots=["normal"])
        code = created["code"]
        joined = await join_room(base, code, "Bob")
        tokens = {0: created["token"], 2: joined["token"]}
        clients = {seat: await Client.connect(base, code) for seat in tokens}
        for seat, client in clients.items():
            assert (await client.hello(tokens[seat]))["seat"] == seat
        await clients[0].send({"type": "start"})
        started = await clients[0].until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")
        game_id = started["room"]["game_id"]
        acked: dict[str, tuple[int, int]] = {}  # action id -> (seat, acknowledged version)

        # Play into round 3, and stop with a person holding a drawn card (mid-turn, mid-round).
        def mid_round(state: GameState) -> bool:
            return state.round >= 3 and state.phase == "discard" and state.turn in clients

        before = await drive(clients, store, game_id, acked, lambda s: s.round >= 3 and s.phase == "draw")
        assert before.round == 3
        before = await drive(clients, store, game_id, acked, mid_round)
        mover = before.turn
        draw = await clients[mover].act({"type": "draw", "source": "stock"})
        assert draw["type"] == "error"  # already drawn: wrong_phase
        last_id = max(acked, key=lambda i: acked[i][1])
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        for client in clients.values():
            await asyncio.wait_for(client.closed.wait(), 10)

        # Every acknowledged move is in the store, with the version its ack carried.
        logged = {a.client_id: a.version for a in await list_actions(store, game_id) if a.client_id}
        assert all(logged.get(i) == v for i, (_, v) in acked.items())
        killed_version, killed_state = await stored_game(store, game_id)
        assert killed_state == before

        proc = start_server_process(url, port, log, LOG_LEVEL="warning")
        clients = {seat: await Client.connect(base, code) for seat in tokens}
        for seat, client in clients.items():
            assert (await client.hello(tokens[seat]))["seat"] == seat
            assert client.state is not None and client.state["version"] == killed_version
        view = clients[mover].state["game"]  # type: ignore[index]
        assert view["phase"] == "discard" and view["turn"] == mover and view["drawn"] == str(before.drawn)
        # A retry of a move acknowledged before the crash is acknowledged again, not applied again.
        last_seat, last_version = acked[last_id]
        retry = await clients[last_seat].act({"type": "draw", "source": "stock"}, action_id=last_id)
        assert retry == {"type": "ack", "id": last_id, "version": last_version}

        final = await drive(clients, store, game_id, acked, lambda s: False)
        assert final.is_over
        for client in clients.values():
            await client.wait_version((await stored_game(store, game_id))[0])
        actions = await list_actions(store, game_id)
        logged = {a.client_id: a.version for a in actions if a.client_id}
        assert all(logged.get(i) == v for i, (_, v) in acked.items())
        assert [a.seq for a in actions] == list(range(1, final.moves + 1))
        moves = [(a.seat, action_from_dict(a.action)) for a in actions]
        assert replay(3, final.options, final.seed, moves) == final
        async with httpx.AsyncClient(base_url=base) as http:
            info = (await http.get(f"/api/rooms/{code}")).json()
        assert info["status"] == "finished" and info["game"]["status"] == "finished"
        for client in clients.values():
            await client.close()
    finally:
        await store.close()
        stop_process(proc)
