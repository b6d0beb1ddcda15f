"""The server as a real process (``python -m app``) for the tests that kill, restart or stop it."""

from __future__ import annotations

import os
import random
import resource
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
# Test servers listen below the kernel's ephemeral ports (``ip_local_port_range``, 32768 and up here): a port
# taken from that range (``bind`` to port 0) stays free only until the server binds it a second later, and
# meanwhile any outgoing connection of the machine (a client, PostgreSQL, Redis, another test run) may take it
# as its own local port, so the server cannot listen there. Seen once in ci-local with a second test run
# beside it: the server exited, and another test's server answered its health check on that port.
_LISTEN_PORTS = (20000, 32767)


_given: set[int] = set()  # every port this process handed out: none is handed out twice


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now, outside the ephemeral range, and never one this process handed out
    before (a Redis Cluster node's bus port picked, then an app process's port picked before that node
    started, were once the same: the app could not listen). Only another test process's server, which picks
    among 12,768 ports at random, can take it before the caller's server binds it."""
    for _ in range(200):
        port = random.randint(*_LISTEN_PORTS)
        if port in _given:
            continue
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
        _given.add(port)
        return port
    raise RuntimeError(f"no free port in {_LISTEN_PORTS}")


def server_env(database_url: str, port: int, **extra: str) -> dict[str, str]:
    """The environment of a test server: this database and port, bots without delay, fast clients allowed."""
    return {
        **os.environ,
        "DATABASE_URL": database_url,
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "BOT_DELAY_MS": "0",
        "ROUND_BREAK_SECONDS": "0",  # whole games in tests: no pause between rounds
        "MAX_MESSAGES_PER_SECOND": "1000",
        **extra,
    }


def start(
    args: list[str],
    env: dict[str, str],
    log: Path,
    *,
    open_files: tuple[int, int] | None = None,
    cwd: Path = ROOT,
) -> subprocess.Popen[bytes]:
    """Run ``args`` from the project root (or ``cwd``: another checkout's); stdout and stderr appended to
    ``log``; ``open_files``: the (soft, hard) limit on open files the process starts with."""

    def limit_files() -> None:
        if open_files is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, open_files)

    with log.open("ab") as out:
        return subprocess.Popen(args, cwd=cwd, env=env, stdout=out, stderr=out, preexec_fn=limit_files)


def wait_ready(
    proc: subprocess.Popen[bytes], base: str, log: Path, timeout: float = 120, path: str = "/readyz"
) -> None:
    """Wait until ``path`` answers 200 from this process (the process must not exit meanwhile: one that
    could not listen on its port exits, and another server answering there is not taken for it)."""
    deadline = time.monotonic() + timeout
    port = int(base.rsplit(":", 1)[1].split("/")[0])
    # One client for every look: a client per look made a TLS context each time (about 20 ms of CPU, every
    # 50 ms, beside the starting servers: 3 s of a three-process cluster's start).
    with httpx.Client(timeout=1) as http:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"the server exited ({proc.returncode}):\n{log.read_text()[-4000:]}")
            try:
                if http.get(f"{base}{path}").status_code == 200 and listens(proc.pid, port):
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError(f"the server was not ready within {timeout} s:\n{log.read_text()[-4000:]}")


def listens(pid: int, port: int) -> bool:
    """Whether process ``pid`` (or a child of it) holds the socket listening on ``port`` (Linux ``/proc``)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table, encoding="ascii") as rows:
            for row in list(rows)[1:]:
                fields = row.split()
                if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:  # 0A: LISTEN
                    inodes.add(f"socket:[{fields[9]}]")
    pids = [pid, *_children(pid)]
    for each in pids:
        fds = Path(f"/proc/{each}/fd")
        try:
            if any(os.readlink(fd) in inodes for fd in fds.iterdir()):
                return True
        except OSError:  # gone, or a descriptor closed while read
            continue
    return False


def _children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def start_server_process(
    database_url: str, port: int, log: Path, *, open_files: tuple[int, int] | None = None, **env: str
) -> subprocess.Popen[bytes]:
    """``python -m app`` on ``port``, logging at info unless told otherwise; waits for /healthz (up to 120 s:
    a guard against a hang, not a measure: under a loaded machine's CI a start took more than 30)."""
    proc = start(
        [sys.executable, "-m", "app"],
        server_env(database_url, port, **{"LOG_LEVEL": "info", **env}),
        log,
        open_files=open_files,
    )
    wait_ready(proc, f"http://127.0.0.1:{port}", log, timeout=120, path="/healthz")
    return proc


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Kill the process (what a crash does)."""
    if proc.poll() is None:
        proc.kill()
        proc.wait(timeout=10)


def stop_process(proc: subprocess.Popen[bytes]) -> None:
    """Ask the process to stop (SIGTERM), killing it if it does not within 10 s."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
