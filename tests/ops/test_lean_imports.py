"""The serving process (``python -m app``) loads no library it needs only on a rare path until that path is
taken: the Web Push stack (httpx, pywebpush, requests, http_ece, py_vapid: about 18 MB with the part of
cryptography only they use) when a push is sent or the server's key is first asked for, segno at the first QR
code, and never Alembic (migrations run in a child process) nor a test tool. Read from the real server's own
account of its imports (``python -X importtime``), while a table is being played over a socket.
(``cryptography`` itself is not in the list: the passkeys' ``webauthn`` imports it at start.)"""

from __future__ import annotations

import sys
from pathlib import Path

import httpx
import pytest

from tests.api.wsclient import Client, create_room, free_port
from tests.server_process import server_env, start, stop_process, wait_ready

PUSH_STACK = ("httpx", "pywebpush", "requests", "http_ece", "py_vapid")
NEVER = ("alembic", "schemathesis", "hypothesis", "pytest")


def imported(log: Path) -> set[str]:
    """The top-level packages the process has imported so far (its ``-X importtime`` lines)."""
    names = set()
    for line in log.read_text(errors="replace").splitlines():
        if line.startswith("import time:") and not line.rstrip().endswith("| imported package"):
            names.add(line.rsplit("|", 1)[1].strip().split(".")[0])
    return names


@pytest.mark.slow
async def test_the_serving_process_imports_the_push_stack_only_when_a_key_is_asked_for(
    tmp_path: Path,
) -> None:
    port, log = free_port(), tmp_path / "server.log"
    env = server_env(f"sqlite+aiosqlite:///{tmp_path / 'game.db'}", port, LOG_LEVEL="warning")
    proc = start([sys.executable, "-X", "importtime", "-m", "app"], env, log)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_ready(proc, base, log, path="/healthz")
        created = await create_room(base, "Ann")
        client = await Client.connect(base, created["code"])
        try:
            await client.hello(created["token"])
            assert client.state is not None
        finally:
            await client.close()
        serving = imported(log)
        assert "uvicorn" in serving and "sqlalchemy" in serving  # the log is the server's imports
        not_yet = {*PUSH_STACK, *NEVER, "segno"}
        assert not serving & not_yet, serving & not_yet

        async with httpx.AsyncClient(base_url=base) as http:
            assert (await http.get("/api/push/key")).status_code == 200  # the key is made: now it loads
            assert (
                await http.get("/qr.svg", params={"link": f"{base}/r/{created['code']}"})
            ).status_code == 200
        after = imported(log)
        assert {"py_vapid", "segno"} <= after, after - serving
        assert after.isdisjoint(NEVER)
    finally:
        stop_process(proc)
