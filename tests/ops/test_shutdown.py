"""SIGTERM to a real ``python -m app``: clients are told to reconnect, nothing acknowledged is lost, exit 0.
The same run checks the logs: JSON lines only, request ids and room codes, and never a seat token."""

from __future__ import annotations

import asyncio
import signal
import sys
import time
from pathlib import Path

import pytest

from app.store import Store
from tests.api.wsclient import Client, create_room, free_port, join_room
from tests.reads import list_actions

from .conftest import json_lines, play, server_env, start, stop, wait_ready


@pytest.mark.slow
async def test_sigterm_drains_tells_clients_and_loses_nothing(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'shutdown.db'}"
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = tmp_path / "server.log"
    proc = start([sys.executable, "-m", "app"], server_env(url, port, LOG_LEVEL="debug"), log)
    store = Store(url)
    try:
        await asyncio.to_thread(wait_ready, proc, base, log)
        created = await create_room(base, "Ann", seats=2)
        code = created["code"]
        joined = await join_room(base, code, "Bob")
        tokens = {0: created["token"], 1: joined["token"]}
        clients = {seat: await Client.connect(base, code) for seat in tokens}
        for seat, client in clients.items():
            assert (await client.hello(tokens[seat]))["seat"] == seat
        bad = await Client.connect(base, code)
        await bad.send({"type": "hello", "token": "not-a-seat-" + tokens[0][:8]})
        assert (await bad.next("error"))["code"] == "bad_token"
        await bad.close()
        await clients[0].send({"type": "start"})
        started = await clients[0].until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")
        game_id = started["room"]["game_id"]

        acked: dict[str, int] = {}
        await play(clients, store, game_id, acked, moves=6)
        assert len(acked) == 6
        playing = asyncio.create_task(play(clients, store, game_id, acked))  # moves in flight at SIGTERM
        while len(acked) < 10:
            await asyncio.sleep(0.001)
        signalled = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        code_ = await asyncio.to_thread(proc.wait, 15)
        took = time.monotonic() - signalled
        await asyncio.wait_for(playing, 15)

        assert code_ == 0, log.read_text()[-3000:]
        assert took < 8, f"shutdown took {took:.1f} s"
        for client in clients.values():
            await asyncio.wait_for(client.closed.wait(), 5)
            assert {"type": "restarting"} in client.received
            assert client.received[-1] == {"type": "restarting"}
            assert client.ws.close_code == 1012
        # Every acknowledged move is in the store, at the version its ack carried.
        logged = {a.client_id: a.version for a in await list_actions(store, game_id) if a.client_id}
        assert acked and all(logged.get(i) == v for i, v in acked.items())
    finally:
        await store.close()
        stop(proc)

    text = log.read_text()
    entries = json_lines(text)  # every line is one JSON object
    assert all({"time", "level", "logger", "message"} <= set(e) for e in entries)
    assert any(e["logger"] == "uvicorn.access" and "request_id" in e for e in entries), "access log"
    assert any(e.get("room") == code for e in entries), "a line carries the room code"
    for token in tokens.values():
        assert token not in text and token[:16] not in text, "a seat token reached the logs"
