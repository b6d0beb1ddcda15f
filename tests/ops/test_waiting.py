"""At start the server waits for its database (and Redis) with a growing pause, one log line per try, then
gives up with a clear error; a database that comes up during the wait is used."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from collections.abc import AsyncIterator

import pytest

from app.config import Settings
from app.waiting import ServiceUnreachable, database_place, redis_place, wait_until_reachable
from tests.server_process import ROOT, free_port


class FakeTime:
    """A clock that moves only when the code under test sleeps."""

    def __init__(self) -> None:
        self.now = 0.0
        self.pauses: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.pauses.append(seconds)
        self.now += seconds


async def test_tries_again_with_a_growing_pause_until_the_service_answers(
    caplog: pytest.LogCaptureFixture,
) -> None:
    time = FakeTime()
    failures = [ConnectionRefusedError("refused")] * 4

    async def probe() -> None:
        if failures:
            raise failures.pop()

    with caplog.at_level("INFO", logger="app.waiting"):
        tries = await wait_until_reachable("the database at db:5432/x", probe, 60, **vars_of(time))
    assert tries == 5
    assert time.pauses == [0.5, 1.0, 2.0, 4.0]
    waits = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(waits) == 4, "one line per failed try"
    assert waits[0].startswith("waiting for the database at db:5432/x: try 1 failed (ConnectionRefusedError")
    assert "answered after 5 tries" in caplog.records[-1].getMessage()


async def test_gives_up_after_the_wait_with_the_last_error() -> None:
    time = FakeTime()

    async def probe() -> None:
        raise OSError("Name or service not known")

    with pytest.raises(ServiceUnreachable) as raised:
        await wait_until_reachable("Redis at redis:6379/0", probe, 20, **vars_of(time))
    assert time.pauses == [0.5, 1.0, 2.0, 4.0, 5.0, 5.0, 2.5], (
        "the pause doubles up to 5 s, then fits the wait"
    )
    assert time.now == 20
    message = str(raised.value)
    assert message.startswith("Redis at redis:6379/0 did not answer within 20 s (8 tries;")
    assert "OSError: Name or service not known" in message


async def test_a_wait_of_zero_tries_once() -> None:
    time = FakeTime()

    async def probe() -> None:
        raise ConnectionRefusedError()

    with pytest.raises(ServiceUnreachable, match=r"\(1 tries; last error: ConnectionRefusedError\)"):
        await wait_until_reachable("x", probe, 0, **vars_of(time))
    assert time.pauses == []


def test_places_in_log_lines_carry_no_password() -> None:
    assert database_place("postgresql+asyncpg://u:s3cret@db:5432/tt") == "db:5432/tt"
    assert redis_place("redis://:s3cret@redis:6379/0") == "redis:6379/0"


def vars_of(time: FakeTime) -> dict[str, object]:
    return {"sleep": time.sleep, "clock": time.clock}


async def run_app(args: list[str], env: dict[str, str], timeout: float = 60) -> tuple[int, list[dict]]:
    """Run ``python -m app ARGS``; its exit status and its JSON log lines (stdout is not a terminal)."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "app",
        *args,
        cwd=ROOT,
        env={**os.environ, **env},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), timeout)
    finally:
        if proc.returncode is None:  # it did not exit by itself: no process is left behind
            proc.kill()
            await proc.wait()
    lines = [json.loads(line) for line in out.decode().splitlines() if line.startswith("{")]
    assert proc.returncode is not None
    return proc.returncode, lines


@pytest.mark.slow
async def test_an_unreachable_database_gives_retries_then_a_clear_exit() -> None:
    port = free_port()
    url = f"postgresql+asyncpg://u:s3cret@127.0.0.1:{port}/nowhere"
    status, lines = await run_app(["migrate"], {"DATABASE_URL": url, "STARTUP_WAIT_SECONDS": "2"})
    assert status == 1
    waits = [e["message"] for e in lines if e["message"].startswith("waiting for the database")]
    assert len(waits) >= 2, lines
    assert all(f"127.0.0.1:{port}/nowhere" in m and "s3cret" not in m for m in waits)
    assert lines[-1]["level"] == "error"
    assert lines[-1]["message"].startswith(
        f"the database at 127.0.0.1:{port}/nowhere did not answer within 2 s"
    )


@pytest.mark.slow
async def test_an_unreachable_redis_stops_the_server_before_it_serves() -> None:
    port = free_port()
    env = {
        "DATABASE_URL": "sqlite+aiosqlite:///:memory:",
        "REDIS_URL": f"redis://127.0.0.1:{port}/0",
        "STARTUP_WAIT_SECONDS": "1",
        "PORT": str(free_port()),
    }
    status, lines = await run_app(["serve"], env)
    assert status == 1
    assert any(e["message"].startswith(f"waiting for Redis at 127.0.0.1:{port}/0") for e in lines)
    assert lines[-1]["message"].startswith(f"Redis at 127.0.0.1:{port}/0 did not answer within 1 s")
    assert not any("Uvicorn running" in e["message"] for e in lines)


@contextlib.asynccontextmanager
async def forwarder(port: int, to_host: str, to_port: int) -> AsyncIterator[None]:
    """A TCP relay on 127.0.0.1:PORT to TO_HOST:TO_PORT: the database "comes up" on that port."""

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except ConnectionError:
            pass
        finally:
            writer.close()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(to_host, to_port)
        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    server = await asyncio.start_server(handle, "127.0.0.1", port)
    try:
        yield
    finally:
        server.close()


@pytest.mark.postgres
async def test_a_database_that_comes_up_during_the_wait_is_used(pg_url: str) -> None:
    from sqlalchemy import inspect
    from sqlalchemy.engine import make_url

    from app.store.db import make_engine

    real = make_url(pg_url)
    port = free_port()
    behind_relay = real.set(host="127.0.0.1", port=port).render_as_string(hide_password=False)
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "app",
        "migrate",
        cwd=ROOT,
        env={**os.environ, "DATABASE_URL": behind_relay, "STARTUP_WAIT_SECONDS": "60"},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    assert proc.stdout is not None
    seen: list[str] = []
    try:
        while len([m for m in seen if m.startswith("waiting for the database")]) < 2:  # it is waiting
            line = await asyncio.wait_for(proc.stdout.readline(), 30)
            assert line, f"the process ended: {seen}"
            seen.append(json.loads(line)["message"])
        async with forwarder(port, real.host or "127.0.0.1", real.port or 5432):
            out, _ = await asyncio.wait_for(proc.communicate(), 60)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    assert proc.returncode == 0, out.decode()
    assert any("answered after" in json.loads(line)["message"] for line in out.decode().splitlines())
    engine = make_engine(pg_url)
    try:
        async with engine.connect() as conn:
            tables = await conn.run_sync(lambda c: inspect(c).get_table_names())
    finally:
        await engine.dispose()
    assert "rooms" in tables, "the migrations ran on the database that came up"


def test_the_wait_is_a_setting_with_a_minute_by_default() -> None:
    assert Settings().startup_wait_seconds == 60
    assert Settings(startup_wait_seconds=5).startup_wait_seconds == 5
