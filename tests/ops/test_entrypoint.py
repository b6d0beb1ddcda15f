"""The container's entrypoint, run as compose runs it (same environment) against a local PostgreSQL."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from pathlib import Path

import httpx
import pytest
import yaml
from sqlalchemy import text

from app.store import Store
from tests.api.wsclient import Client, free_port, pick_move, stored_game
from tests.conftest import fresh_pg_database

from .conftest import ROOT, start, stop, wait_ready

pytestmark = pytest.mark.postgres


def compose_app_environment(**overrides: str) -> dict[str, str]:
    """docker-compose.yml's ``app.environment`` with ``${VAR:-default}`` resolved to the defaults."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    env = {
        key: re.sub(r"\$\{[A-Z_]+:-([^}]*)\}", r"\1", str(value))
        for key, value in compose["services"]["app"]["environment"].items()
    }
    assert set(overrides) <= set(env), "only variables compose sets are replaced"
    return {**env, **overrides}


async def test_entrypoint_migrates_serves_and_hosts_a_game(tmp_path: Path) -> None:
    async with fresh_pg_database() as url:
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        environment = compose_app_environment(DATABASE_URL=url, HOST="127.0.0.1", PORT=str(port))
        # The image's python is the first on PATH; here it is this virtualenv's.
        path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
        env = {"PATH": path, "HOME": str(tmp_path), **environment}
        log = tmp_path / "entrypoint.log"
        proc = start(["sh", str(ROOT / "docker" / "entrypoint.sh")], env, log)
        store = Store(url)
        try:
            await asyncio.to_thread(wait_ready, proc, base, log)
            async with store.engine.connect() as conn:
                version = (await conn.execute(text("SELECT version_num FROM alembic_version"))).scalar_one()
            heads = sorted(p.name.split("_")[0] for p in (ROOT / "migrations" / "versions").glob("*.py"))
            assert version == heads[-1], "the migrations were applied up to head"

            async with httpx.AsyncClient(base_url=base) as http:
                created = (await http.post("/api/rooms", json={"name": "Ann", "seats": 2})).json()
                assert created["url"] == f"http://localhost:8000/r/{created['code']}", "PUBLIC_BASE_URL"
                joined = (await http.post(f"/api/rooms/{created['code']}/join", json={"name": "Bob"})).json()
            tokens = {0: created["token"], 1: joined["token"]}
            clients = {seat: await Client.connect(base, created["code"]) for seat in tokens}
            for seat, client in clients.items():
                assert (await client.hello(tokens[seat]))["seat"] == seat
            await clients[0].send({"type": "start"})
            started = await clients[0].until(
                lambda m: m["type"] == "state" and m["room"]["status"] == "playing"
            )
            game_id = started["room"]["game_id"]
            version_, state = await stored_game(store, game_id)
            answer = await clients[state.turn].act(pick_move(state), version=version_)
            assert answer["type"] == "ack"

            proc.send_signal(signal.SIGTERM)
            assert await asyncio.to_thread(proc.wait, 15) == 0, log.read_text()[-3000:]
            for client in clients.values():
                await asyncio.wait_for(client.closed.wait(), 5)
                assert client.received[-1] == {"type": "restarting"}
            assert (await stored_game(store, game_id))[0] == answer["version"]
        finally:
            await store.close()
            stop(proc)
