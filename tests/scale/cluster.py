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
from typing import Any

import httpx
import pytest
import redis

from app.rooms.redis_link import Link
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
    """A redis-server of this test's own (no persistence of data), which the test may kill and start again.
    Its ACL users are kept in an ACL file, so they outlive a restart as a real deployment's do."""

    def __init__(self, tmp: Path, *extra: str) -> None:
        self.binary = need(REDIS_SERVER)
        self.port = free_port()
        self.log = tmp / "redis.log"
        self.acl_file = tmp / "redis.acl"
        self.extra = list(extra)  # more redis-server arguments (a cluster node's)
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """As the default user (everything allowed): the test's own probes."""
        return f"redis://127.0.0.1:{self.port}/0"

    def user_url(self, user: str) -> str:
        """As ``user`` (``add_user``): passwordless, so any password is taken."""
        return f"redis://{user}:x@127.0.0.1:{self.port}/0"

    def add_user(self, user: str) -> None:
        """A user allowed everything, as the default user is, until ``mute``."""
        self._acl("SETUSER", user, "reset", "on", "nopass", "~*", "&*", "+@all")

    def mute(self, user: str) -> None:
        """From now on ``user``'s PUBLISH and SPUBLISH fail (NOPERM), on its open connections too; everything
        else (subscriptions, SET, EVAL) goes on working."""
        self._acl("SETUSER", user, "-publish", "-spublish")

    def _acl(self, *args: str) -> None:
        with redis.Redis(port=self.port, socket_timeout=5) as admin:
            admin.execute_command("ACL", *args)
            admin.execute_command("ACL", "SAVE")  # kept through a restart (``kill``, ``start``)

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
            "--aclfile",
            str(self.acl_file),
            *self.extra,
        ]
        self.acl_file.touch()  # (redis-server refuses a missing ACL file)
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

    def kill(self, room: str | None = None) -> None:
        """SIGKILL the server (``room``: for a cluster's sake; one server holds every room)."""
        if self.proc is not None:
            stop(self.proc)


class RedisCluster:
    """A Redis Cluster of this test's own: ``nodes`` redis-servers (cluster mode, no replicas, each its own
    directory, config file and ACL file) joined by ``redis-cli --cluster create``. ``kill`` and ``start``
    stop one node and start it again on its port and config file, so it rejoins with its slots. The same
    users as ``RedisServer``'s, on every node. ``cluster-require-full-coverage no``: while a node is away
    the other nodes go on serving their slots (with no replica, its own slots wait for it)."""

    def __init__(self, tmp: Path, nodes: int = 3) -> None:
        self.cli = need("redis-cli")
        self.nodes: list[RedisServer] = []
        for i in range(nodes):
            where = tmp / f"redis{i}"
            where.mkdir(parents=True, exist_ok=True)
            node = RedisServer(where)
            node.extra = [
                *("--cluster-enabled", "yes", "--cluster-config-file", str(where / "nodes.conf")),
                *("--cluster-port", str(free_port()), "--cluster-node-timeout", "2000"),
                *("--cluster-require-full-coverage", "no", "--dir", str(where)),
            ]
            self.nodes.append(node)
        self.killed: list[RedisServer] = []  # stopped by ``kill``: ``start`` starts them again
        self.created = False

    @property
    def url(self) -> str:
        return f"redis+cluster://127.0.0.1:{self.nodes[0].port}"

    def user_url(self, user: str) -> str:
        return f"redis+cluster://{user}:x@127.0.0.1:{self.nodes[0].port}"

    def add_user(self, user: str) -> None:
        for node in self.nodes:
            node.add_user(user)

    def mute(self, user: str) -> None:
        for node in self.nodes:
            node.mute(user)

    def start(self) -> None:
        """Start every node and join them (the first time), or start the nodes ``kill`` stopped again."""
        if self.created:
            for node in self.killed:
                node.start()
            self.killed = []
        else:
            for node in self.nodes:
                self._first_start(node)
            self.created = True
            addresses = [f"127.0.0.1:{node.port}" for node in self.nodes]
            subprocess.run(
                [self.cli, "--cluster", "create", *addresses, "--cluster-replicas", "0", "--cluster-yes"],
                check=True,
                capture_output=True,
                timeout=60,
            )
        self.wait_ok()

    @staticmethod
    def _first_start(node: RedisServer, tries: int = 3) -> None:
        """Start a node for the first time; a port another test's server took between ``free_port`` and the
        bind ("Address already in use": its own or its cluster bus's) is traded for two new ones (until the
        cluster is made, nothing holds a node's ports)."""
        for attempt in range(tries):
            try:
                node.start()
                return
            except RuntimeError as exc:
                if "Address already in use" not in str(exc) or attempt == tries - 1:
                    raise
            node.port = free_port()
            node.extra[node.extra.index("--cluster-port") + 1] = str(free_port())

    def wait_ok(self, seconds: float = 30) -> None:
        """Until every node says ``cluster_state:ok`` and knows every other node."""
        deadline = time.monotonic() + seconds
        while True:
            states = []
            known = f"cluster_known_nodes:{len(self.nodes)}"
            for node in self.nodes:
                probe = redis.Redis(port=node.port, socket_timeout=2)
                with contextlib.suppress(redis.RedisError), probe:
                    text = probe.execute_command("CLUSTER", "INFO").decode()
                    states.append("cluster_state:ok" in text and known in text)
            if len(states) == len(self.nodes) and all(states):
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"the Redis Cluster is not ok after {seconds} s: {states}")
            time.sleep(0.1)

    def node_of(self, room: str) -> RedisServer:
        """The node whose slots hold ``room``'s channel and lease."""
        from app.rooms.redis_link import room_channel

        with redis.Redis(port=self.nodes[0].port, socket_timeout=5) as one:
            slot = int(one.execute_command("CLUSTER", "KEYSLOT", room_channel(room)))
            for start, end, master, *_ in one.execute_command("CLUSTER", "SLOTS"):
                if start <= slot <= end:
                    return next(n for n in self.nodes if n.port == int(master[1]))
        raise RuntimeError(f"no node holds slot {slot}")

    def move(self, room: str) -> RedisServer:
        """Give ``room``'s slot (no key in it) to another node, as a reshard does; that node."""
        from app.rooms.redis_link import room_channel

        source = self.node_of(room)
        target = next(n for n in self.nodes if n is not source)
        with redis.Redis(port=source.port, socket_timeout=5) as one:
            slot = int(one.execute_command("CLUSTER", "KEYSLOT", room_channel(room)))
        ids = {}
        for node in self.nodes:
            with redis.Redis(port=node.port, socket_timeout=5) as one:
                ids[node.port] = one.execute_command("CLUSTER", "MYID").decode()
        for node in (target, source, *(n for n in self.nodes if n not in (source, target))):
            with redis.Redis(port=node.port, socket_timeout=5) as one:
                one.execute_command("CLUSTER", "SETSLOT", slot, "NODE", ids[target.port])
        return target

    def kill(self, room: str | None = None) -> None:
        """SIGKILL the node holding ``room``'s slot (without a room: every node)."""
        victims = [self.node_of(room)] if room is not None else self.nodes
        for node in victims:
            node.kill()
        self.killed = [*self.killed, *(n for n in victims if n not in self.killed)]


Redis = RedisServer | RedisCluster
REDIS_KINDS = ("single", "cluster")


def redis_of(kind: str, tmp: Path) -> Redis:
    """A test's own Redis: one server (``single``) or a cluster of three nodes (``cluster``)."""
    return RedisCluster(tmp) if kind == "cluster" else RedisServer(tmp)


def client_of(server: Redis) -> Any:
    """A client of ``server`` as the app makes one (``redis.asyncio.Redis`` or ``RedisCluster``)."""
    return Link(server.url, max_connections=32, wait_seconds=2.0, retries=3).redis


# A table's sockets (``/ws/<code>``) and REST calls (``/api/rooms/<code>...``) carry its code in a header the
# balancer hashes (rendezvous hashing over the processes it finds healthy), so they all land on one process;
# anything else goes to any process. The same rule as docker/Caddyfile's.
TABLE_ROUTE = r"""@table path_regexp table ^/(?:ws|api/rooms)/([A-Za-z0-9]+)
		request_header -X-Table
		request_header @table X-Table {re.table.1}"""
POLICIES = {"table": "header X-Table", "round_robin": "round_robin"}


def caddyfile(port: int, upstreams: list[int], policy: str = "table") -> str:
    """Caddy in front of the app processes, with active health checks: ``table`` hashes a table's code, so its
    sockets and REST calls share one process (docker/Caddyfile, for compose's replicas found in DNS, does the
    same with passive checks); ``round_robin`` spreads them, as any balancer that does not hash would."""
    targets = " ".join(f"127.0.0.1:{p}" for p in upstreams)
    route = TABLE_ROUTE if policy == "table" else ""
    return f"""{{
	admin off
	auto_https off
}}
http://127.0.0.1:{port} {{
	route {{
		{route}
		reverse_proxy {targets} {{
			lb_policy {POLICIES[policy]}
			lb_try_duration 5s
			lb_try_interval 100ms
			# Liveness, not /readyz: when a part every process shares (PostgreSQL, Redis) is away, /readyz
			# says so everywhere, and the balancer must not drop every process from the rotation for it.
			health_uri /healthz
			health_interval 500ms
			health_timeout 1s
			fail_duration 3s
		}}
	}}
}}
"""


@dataclass
class Cluster:
    tmp: Path
    db_url: str
    redis: Redis
    ports: list[int]
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)
    balancer_port: int = 0
    balancer: subprocess.Popen[bytes] | None = None
    balancers: list[subprocess.Popen[bytes]] = field(
        default_factory=list
    )  # more of them (``another_balancer``)
    env: dict[str, str] = field(default_factory=dict)
    users: list[str] = field(default_factory=list)  # each process's Redis user (a new one at each start)
    restarts: list[int] = field(default_factory=list)  # how often each process was restarted

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
        self.users = [self._new_user(f"app{i}") for i in range(len(self.ports))]
        self.restarts = [0 for _ in self.ports]
        self.procs = [
            start(["sh", str(ROOT / "docker" / "entrypoint.sh")], self.app_env(i), self.log(i))
            for i in range(len(self.ports))
        ]
        for i, proc in enumerate(self.procs):
            wait_ready(proc, self.direct(i), self.log(i), timeout=120)

    def start_balancer(self) -> None:
        """The balancer of ``base``: Caddy hashing a table's code (``caddyfile``)."""
        self.balancer_port, self.balancer = self._caddy("table")

    def another_balancer(self, policy: str) -> str:
        """One more Caddy in front of the same processes, balancing by ``policy``; its address."""
        port, proc = self._caddy(policy)
        self.balancers.append(proc)
        return f"http://127.0.0.1:{port}"

    def _caddy(self, policy: str) -> tuple[int, subprocess.Popen[bytes]]:
        binary = need(CADDY)
        port = free_port()
        config = self.tmp / f"Caddyfile-{port}"
        config.write_text(caddyfile(port, self.ports, policy))
        env = {
            **os.environ,
            "HOME": str(self.tmp),
            "XDG_DATA_HOME": str(self.tmp / "data"),
            "XDG_CONFIG_HOME": str(self.tmp / "config"),
        }
        log = self.tmp / f"caddy-{port}.log"
        proc = start([binary, "run", "--config", str(config), "--adapter", "caddyfile"], env, log)
        wait_ready(proc, f"http://127.0.0.1:{port}", log, timeout=20)
        return port, proc

    def kill(self, index: int) -> None:
        """SIGKILL one process: what a crash does."""
        self.procs[index].send_signal(signal.SIGKILL)
        self.procs[index].wait(timeout=10)

    def terminate(self, index: int) -> int:
        """Stop one process as a deployment does (SIGTERM: it drains, then exits); its exit status."""
        self.procs[index].send_signal(signal.SIGTERM)
        return self.procs[index].wait(timeout=20)

    def mute(self, index: int) -> None:
        """Process ``index`` can no longer publish to Redis (its notices are dropped), while its
        subscriptions and leases work on; its next start (``restart``) publishes again."""
        self.redis.mute(self.users[index])

    def _new_user(self, user: str) -> str:
        self.redis.add_user(user)
        return user

    def app_env(self, index: int) -> dict[str, str]:
        """The environment of process ``index``: its port, and its own Redis user."""
        path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
        redis_url = self.redis.user_url(self.users[index])
        return server_env(self.db_url, self.ports[index], PATH=path, **{**self.env, "REDIS_URL": redis_url})

    def restart(self, index: int) -> None:
        """A fresh process on the killed one's port (the database is migrated already: serve only), as a
        new Redis user (the dead process's may be muted)."""
        self.restarts[index] += 1
        self.users[index] = self._new_user(f"app{index}r{self.restarts[index]}")
        env = {**self.app_env(index), "RUN_MIGRATIONS": "false"}
        self.procs[index] = start([sys.executable, "-m", "app", "serve"], env, self.log(index))
        wait_ready(self.procs[index], self.direct(index), self.log(index), timeout=60)

    def stop_all(self) -> None:
        for proc in [*self.procs, *([self.balancer] if self.balancer else []), *self.balancers]:
            stop(proc)
        self.redis.kill()


@contextlib.asynccontextmanager
async def running_cluster(
    tmp: Path, processes: int = 3, redis_kind: str = "single", **env: str
) -> AsyncIterator[tuple[Cluster, Store]]:
    """PostgreSQL + own Redis (``redis_kind``: one server, or a cluster of three nodes) + ``processes`` app
    processes (each its own Redis user) + Caddy; everything stopped afterwards."""
    async with fresh_pg_database() as db_url:
        redis = redis_of(redis_kind, tmp)
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
            await asyncio.to_thread(cluster.start_apps)
            await asyncio.to_thread(cluster.start_balancer)
            yield cluster, store
        finally:
            await store.close()
            cluster.stop_all()


async def ready(base: str) -> httpx.Response:
    async with httpx.AsyncClient(base_url=base, timeout=5) as http:
        return await http.get("/readyz")
