"""The real parts of a site with several processes, for the scale tests: PostgreSQL (a fresh database), a
redis-server of the test's own on a free port, ``python -m app`` processes, and Caddy balancing them."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from app.store import Store
from tests.api.wsclient import free_port
from tests.conftest import fresh_pg_database, services_required
from tests.server_process import ROOT, server_env, start, stop, wait_ready

REDIS_SERVER = "redis-server"
CADDY = "caddy"


def need(binary: str) -> str:
    """The path of ``binary``; fails in CI (REQUIRE_SERVICES=1) and skips elsewhere when it is missing."""
    path = shutil.which(binary) or next(
        (p for p in (f"/usr/bin/{binary}", f"/usr/sbin/{binary}") if os.path.exists(p)), None
    )
    if path is None:
        reason = f"{binary} is not installed (apt-get install {binary.split('-')[0]})"
        if services_required():
            pytest.fail(reason + " (REQUIRE_SERVICES=1)")
        pytest.skip(reason)
    return path


class RedisServer:
    """A redis-server of this test's own (no persistence), which the test may kill and start again."""

    def __init__(self, tmp: Path) -> None:
        self.binary = need(REDIS_SERVER)
        self.port = free_port()
        self.log = tmp / "redis.log"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        args = [
            self.binary,
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
        ]
        self.proc = start(args, dict(os.environ), self.log)
        deadline = time.monotonic() + 10
        while True:
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), 0.2) as sock,
            ):
                sock.sendall(b"PING\r\n")
                if sock.recv(16).startswith(b"+PONG"):
                    return
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError(f"redis-server did not start:\n{self.log.read_text()[-2000:]}")
            time.sleep(0.05)

    def kill(self) -> None:
        if self.proc is not None:
            stop(self.proc)


class RedisGate:
    """A TCP relay between one app process and Redis that the test can shut: from ``shut()`` on, nothing the
    process sends, on its open connections or on new ones, ever reaches Redis. Shut just before a process is
    killed, it makes "the notice died with the process" certain rather than a race between the publisher
    and the kill. A shut gate stays shut (even a connection the dead process opened is accepted only later):
    its process's next start gets a new one (``Cluster.new_gate``)."""

    def __init__(self, redis: RedisServer) -> None:
        self.redis = redis
        self.port = free_port()
        self._server: asyncio.Server | None = None
        self._links: set[_Link] = set()
        self._shut = False

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._relay, "127.0.0.1", self.port)

    def shut(self) -> None:
        self._shut = True
        for link in self._links:
            link.shut = True

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for link in list(self._links):
            link.close()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.redis.port)
        except OSError:
            writer.close()
            return
        link = _Link(writer, up_writer, shut=self._shut)
        self._links.add(link)
        try:
            await asyncio.gather(link.pump(reader, up_writer, upstream=True), link.pump(up_reader, writer))
        finally:
            self._links.discard(link)
            link.close()


@dataclass(eq=False)
class _Link:
    """One relayed connection: the app's side and Redis's side."""

    app: asyncio.StreamWriter
    redis: asyncio.StreamWriter
    shut: bool = False

    async def pump(
        self, source: asyncio.StreamReader, sink: asyncio.StreamWriter, upstream: bool = False
    ) -> None:
        try:
            while data := await source.read(65536):
                if upstream and self.shut:
                    continue  # never delivered
                sink.write(data)
                await sink.drain()
        except (OSError, asyncio.IncompleteReadError):
            pass
        finally:
            self.close()

    def close(self) -> None:
        for writer in (self.app, self.redis):
            with contextlib.suppress(Exception):
                writer.close()


def caddyfile(port: int, upstreams: list[int]) -> str:
    """Round robin over the app processes, with active health checks (docker/Caddyfile, for compose's
    replicas found in DNS, uses the same balancing with passive checks)."""
    targets = " ".join(f"127.0.0.1:{p}" for p in upstreams)
    return f"""{{
	admin off
	auto_https off
}}
http://127.0.0.1:{port} {{
	reverse_proxy {targets} {{
		lb_policy round_robin
		lb_try_duration 5s
		lb_try_interval 100ms
		# Liveness, not /readyz: when a part every process shares (PostgreSQL, Redis) is away, /readyz says
		# so everywhere, and the balancer must not drop every process from the rotation for it.
		health_uri /healthz
		health_interval 500ms
		health_timeout 1s
		fail_duration 3s
	}}
}}
"""


@dataclass
class Cluster:
    tmp: Path
    db_url: str
    redis: RedisServer
    ports: list[int]
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)
    balancer_port: int = 0
    balancer: subprocess.Popen[bytes] | None = None
    env: dict[str, str] = field(default_factory=dict)
    gates: list[RedisGate] = field(default_factory=list)  # each process's way to Redis, if gated

    @property
    def base(self) -> str:
        """The balancer: what browsers talk to."""
        return f"http://127.0.0.1:{self.balancer_port}"

    def direct(self, index: int) -> str:
        """One process, bypassing the balancer (to put a socket on a chosen process)."""
        return f"http://127.0.0.1:{self.ports[index]}"

    def log(self, index: int) -> Path:
        return self.tmp / f"app{index}.log"

    def start_apps(self) -> None:
        """Start every process at the same moment, as compose's replicas start: the container's entrypoint
        (``python -m app migrate``, then ``serve``); they migrate one after the other, under a lock."""
        self.procs = [
            start(["sh", str(ROOT / "docker" / "entrypoint.sh")], self.app_env(i), self.log(i))
            for i in range(len(self.ports))
        ]
        for i, proc in enumerate(self.procs):
            wait_ready(proc, self.direct(i), self.log(i), timeout=60)

    def start_balancer(self) -> None:
        binary = need(CADDY)
        self.balancer_port = free_port()
        config = self.tmp / "Caddyfile"
        config.write_text(caddyfile(self.balancer_port, self.ports))
        env = {
            **os.environ,
            "HOME": str(self.tmp),
            "XDG_DATA_HOME": str(self.tmp / "data"),
            "XDG_CONFIG_HOME": str(self.tmp / "config"),
        }
        self.balancer = start(
            [binary, "run", "--config", str(config), "--adapter", "caddyfile"], env, self.tmp / "caddy.log"
        )
        wait_ready(self.balancer, self.base, self.tmp / "caddy.log", timeout=20)

    def kill(self, index: int) -> None:
        """SIGKILL one process: what a crash does."""
        self.procs[index].send_signal(signal.SIGKILL)
        self.procs[index].wait(timeout=10)

    async def new_gate(self, index: int) -> None:
        """Process ``index``'s next start reaches Redis through a new gate; the old one stays shut."""
        old = self.gates[index]
        self.gates[index] = RedisGate(self.redis)
        await self.gates[index].start()
        await old.close()

    def app_env(self, index: int) -> dict[str, str]:
        """The environment of process ``index``: its port, and its own gate to Redis when gated."""
        path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
        redis = {"REDIS_URL": self.gates[index].url} if self.gates else {}
        return server_env(self.db_url, self.ports[index], PATH=path, **{**self.env, **redis})

    def restart(self, index: int) -> None:
        """A fresh process on the killed one's port (the database is migrated already: serve only)."""
        env = {**self.app_env(index), "RUN_MIGRATIONS": "false"}
        self.procs[index] = start([sys.executable, "-m", "app", "serve"], env, self.log(index))
        wait_ready(self.procs[index], self.direct(index), self.log(index), timeout=60)

    def stop_all(self) -> None:
        for proc in [*self.procs, *([self.balancer] if self.balancer else [])]:
            stop(proc)
        self.redis.kill()


@contextlib.asynccontextmanager
async def running_cluster(
    tmp: Path, processes: int = 3, *, gated: bool = False, **env: str
) -> AsyncIterator[tuple[Cluster, Store]]:
    """PostgreSQL + own Redis + ``processes`` app processes + Caddy; everything stopped afterwards.
    ``gated``: each process reaches Redis through a ``RedisGate`` of its own (``cluster.gates``)."""
    async with fresh_pg_database() as db_url:
        redis = RedisServer(tmp)
        cluster = Cluster(tmp, db_url, redis, [free_port() for _ in range(processes)])
        cluster.env = {
            "REDIS_URL": redis.url,
            "LOG_LEVEL": "warning",
            "TRUSTED_PROXIES": "127.0.0.1",
            **env,
        }
        store = Store(db_url)
        try:
            redis.start()
            cluster.gates = [RedisGate(redis) for _ in range(processes)] if gated else []
            for gate in cluster.gates:
                await gate.start()
            await asyncio.to_thread(cluster.start_apps)
            await asyncio.to_thread(cluster.start_balancer)
            yield cluster, store
        finally:
            await store.close()
            cluster.stop_all()
            for gate in cluster.gates:
                await gate.close()


async def ready(base: str) -> httpx.Response:
    async with httpx.AsyncClient(base_url=base, timeout=5) as http:
        return await http.get("/readyz")
