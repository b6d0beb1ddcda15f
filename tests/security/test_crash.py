"""Crash under load: several tables play through the protocol; the server is SIGKILLed mid-play and started
again on the same database; every client reconnects and retries what was not acknowledged; nothing
acknowledged is lost, every game replays from its log, and every game then finishes."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import websockets

from app.engine import GameState, action_from_dict
from app.engine.game import replay  # the function (a submodule app.engine.replay may shadow the name)
from app.store import Store
from tests.api.wsclient import Client, create_room, free_port, join_room
from tests.reads import list_actions, load_game_state

from .conftest import assert_not_logged, start_server_process, stop_process
from .player import choose_from_view

TABLES = 4
SEATS = 3
KILL_AFTER_ACKS = 25 * TABLES  # about 25 moves into each game: mid round 2 or 3

Message = dict[str, Any]


@dataclass
class Player:
    code: str
    seat: int
    token: str
    client: Client
    pending: Message | None = None  # sent, not acknowledged
    last_acked: Message | None = None  # the last move that was acknowledged, and its ack
    last_ack: Message | None = None
    last_acted: int = -1  # the version the last acknowledged move was made against


async def answer_or_close(client: Client, action_id: str, timeout: float = 30) -> Message | None:
    """The ack or error for ``action_id``; None when the socket closed first."""
    waiter = asyncio.create_task(
        client.until(lambda m: m["type"] in ("ack", "error") and m.get("id") == action_id, timeout=timeout)
    )
    closer = asyncio.create_task(client.closed.wait())
    await asyncio.wait({waiter, closer}, return_when=asyncio.FIRST_COMPLETED)
    if not waiter.done():
        await asyncio.sleep(0.02)  # what was read before the close is already in the inbox
    closer.cancel()
    if waiter.done():
        return waiter.result()
    waiter.cancel()
    with contextlib.suppress(asyncio.CancelledError, TimeoutError):
        await waiter
    return None


async def play(player: Player, acked: dict[str, tuple[str, int]]) -> str:
    """Play this seat from its own view until the game ends ("finished") or the socket closes ("closed")."""
    client = player.client
    while True:
        if client.closed.is_set():
            return "closed"
        state = client.state
        if state is not None and state["room"]["status"] == "finished":
            return "finished"
        game = state["game"] if state is not None else None
        if game is None or game["turn"] != player.seat or state["version"] <= player.last_acted:  # type: ignore[index]
            await asyncio.sleep(0.003)
            continue
        version = state["version"]  # type: ignore[index]
        message = {
            "type": "action",
            "id": uuid.uuid4().hex,
            "version": version,
            "action": choose_from_view(game),
        }
        player.pending = message
        try:
            await client.send(message)
        except websockets.ConnectionClosed:
            return "closed"
        answer = await answer_or_close(client, message["id"])
        if answer is None:
            return "closed"
        player.pending = None
        player.last_acted = version
        if answer["type"] == "ack":
            acked[message["id"]] = (player.code, answer["version"])
            player.last_acked, player.last_ack = message, answer
        else:
            assert answer["code"] == "stale_version", answer


async def check_store(
    store: Store, games: dict[str, int], acked: dict[str, tuple[str, int]]
) -> dict[str, GameState]:
    """Every acknowledged move is logged with its version; every game replays from its log to its state."""
    states = {}
    for code, game_id in games.items():
        loaded = await load_game_state(store, game_id)
        assert loaded is not None
        state = GameState.from_dict(loaded[1])
        actions = await list_actions(store, game_id)
        logged = {a.client_id: a.version for a in actions if a.client_id}
        for action_id, (room, version) in acked.items():
            if room == code:
                assert logged.get(action_id) == version, f"acknowledged move {action_id} of {code} was lost"
        assert [a.seq for a in actions] == list(range(1, state.moves + 1))
        moves = [(a.seat, action_from_dict(a.action)) for a in actions]
        assert replay(SEATS, state.options, state.seed, moves) == state, f"game {game_id} does not replay"
        states[code] = state
    return states


async def connect(base: str, player: Player) -> None:
    player.client = await Client.connect(base, player.code)
    welcome = await player.client.hello(player.token)
    assert welcome["seat"] == player.seat


@pytest.mark.slow
async def test_sigkill_under_load_then_restart_loses_nothing(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'crash.db'}"
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = tmp_path / "server.log"
    proc = start_server_process(url, port, log)
    store = Store(url)
    players: list[Player] = []
    try:
        games: dict[str, int] = {}
        for t in range(TABLES):
            created = await create_room(base, f"Host{t}", seats=SEATS)
            tokens = [created["token"]]
            for s in range(1, SEATS):
                tokens.append((await join_room(base, created["code"], f"P{t}{s}"))["token"])
            for seat, token in enumerate(tokens):
                client = await Client.connect(base, created["code"])
                players.append(Player(created["code"], seat, token, client))
                await client.hello(token)
            host = players[-SEATS].client
            await host.send({"type": "start"})
            started = await host.until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")
            games[created["code"]] = started["room"]["game_id"]

        acked: dict[str, tuple[str, int]] = {}
        tasks = [asyncio.create_task(play(p, acked)) for p in players]
        deadline = time.monotonic() + 60
        # Kill mid-play, with moves in flight (sent, not yet acknowledged).
        while len(acked) < KILL_AFTER_ACKS or not any(p.pending for p in players):
            assert time.monotonic() < deadline, f"only {len(acked)} moves acknowledged in 60 s"
            assert not any(t.done() for t in tasks), [t.result() for t in tasks if t.done()]
            await asyncio.sleep(0.002)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        assert await asyncio.wait_for(asyncio.gather(*tasks), 20) == ["closed"] * len(players)
        acked_before = len(acked)
        in_flight = [p for p in players if p.pending is not None]
        assert in_flight, "no move was in flight at the kill: the retry path went untested"

        # Nothing acknowledged was lost, and every game replays, before the server comes back.
        killed = await check_store(store, games, acked)
        assert all(not s.is_over and s.moves > 0 for s in killed.values())

        proc = start_server_process(url, port, log)
        for player in players:
            await connect(base, player)
            assert player.client.state is not None
        # Retries of what was in flight: answered with an ack (applied now, or acknowledged again).
        for player in in_flight:
            assert player.pending is not None
            await player.client.send(player.pending)
            answer = await answer_or_close(player.client, player.pending["id"])
            assert answer is not None and answer["type"] == "ack", answer
            acked[player.pending["id"]] = (player.code, answer["version"])
            player.last_acted = player.pending["version"]
            player.pending = None
        # A retry of a move acknowledged before the crash gets the same ack and is not applied again.
        for player in players:
            if player.last_acked is not None and player not in in_flight:
                await player.client.send(player.last_acked)
                again = await answer_or_close(player.client, player.last_acked["id"])
                assert again == player.last_ack, (again, player.last_ack)
        retried = await check_store(store, games, acked)
        for code, state in retried.items():
            assert state.moves >= killed[code].moves

        tasks = [asyncio.create_task(play(p, acked)) for p in players]
        results = await asyncio.wait_for(asyncio.gather(*tasks), 240)
        assert results == ["finished"] * len(players), results
        final = await check_store(store, games, acked)
        assert all(state.is_over for state in final.values())
        assert len(acked) > acked_before
        assert_not_logged(log.read_text(errors="replace"), [p.token for p in players])
    finally:
        for player in players:
            with contextlib.suppress(Exception):
                await player.client.close()
        await store.close()
        stop_process(proc)
