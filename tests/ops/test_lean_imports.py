"""The serving process (``python -m app``) loads no library it needs only on a rare path until that path is
taken: the Web Push stack (httpx, pywebpush, requests, http_ece, py_vapid: about 18 MB with the part of
cryptography only they use) when a push is sent or the server's key is first asked for, the passkeys'
``webauthn`` (with cryptography, pyOpenSSL, pyasn1 and cbor2: about 13 MB) at the first passkey ceremony,
segno at the first QR code, and never Alembic (migrations run in a child process) nor a test tool; on SQLite,
never asyncpg (PostgreSQL's driver, about 2-4 MB). Read from the real server's own account of its imports
(``python -X importtime``), while a table is being played over a socket."""

from __future__ import annotations

import sys
from pathlib import Path

import httpx
import pytest

from tests.api.wsclient import Client, create_room, free_port
from tests.server_process import server_env, start, stop_process, wait_ready

PUSH_STACK = ("httpx", "pywebpush", "requests", "http_ece", "py_vapid")
PASSKEYS = ("webauthn", "cryptography", "OpenSSL", "pyasn1", "cbor2")
NEVER = ("alembic", "schemathesis", "hypothesis", "pytest")
NEVER_ON_SQLITE = ("asyncpg",)


def imported(log: Path) -> set[str]:
    """The top-level packages the process has imported so far (its ``-X importtime`` lines)."""
    names = set()
    for line in log.read_text(errors="replace").splitlines():
        if line.startswith("import time:") and not line.rstrip().endswith("| imported package"):
            names.add(line.rsplit("|", 1)[1].strip().split(".")[0])
    return names


@pytest.mark.slow
async def test_the_serving_process_imports_push_passkeys_and_qr_only_when_first_used(
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
        not_yet = {*PUSH_STACK, *PASSKEYS, *NEVER, *NEVER_ON_SQLITE, "segno"}
        assert not serving & not_yet, serving & not_yet

        async with httpx.AsyncClient(base_url=base) as http:
            assert (await http.get("/api/push/key")).status_code == 200  # the key is made: now it loads
            assert (
                await http.get("/qr.svg", params={"link": f"{base}/r/{created['code']}"})
            ).status_code == 200
            signing_in = await http.post(  # a ceremony begins: now webauthn loads
                "/api/passkeys/sign-in/options", json={}, headers={"Origin": base}
            )
            assert signing_in.status_code == 200, signing_in.text
            assert signing_in.json()["publicKey"]["rpId"] == "127.0.0.1"
        after = imported(log)
        assert {"py_vapid", "segno", "webauthn"} <= after, after - serving
        assert after.isdisjoint({*NEVER, *NEVER_ON_SQLITE})
    finally:
        stop_process(proc)
