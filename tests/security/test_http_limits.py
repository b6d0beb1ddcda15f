"""Limits at the HTTP edge, against a real ``python -m app``: request bodies over the limit are refused
before they are read (declared or chunked), forwarding headers are believed only from trusted proxies,
connections that send no complete request are closed, and the open-file limit is raised at start."""

from __future__ import annotations

import asyncio
import contextlib
import json
import select
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import websockets

from tests.api.wsclient import free_port
from tests.server_process import start_server_process, stop_process

Server = tuple[str, subprocess.Popen[bytes]]


@contextlib.contextmanager
def server(tmp_path: Path, *, open_files: tuple[int, int] | None = None, **env: str) -> Iterator[Server]:
    port = free_port()
    proc = start_server_process(
        f"sqlite+aiosqlite:///{tmp_path / 'limits.db'}",
        port,
        tmp_path / "server.log",
        open_files=open_files,
        **env,
    )
    try:
        yield f"http://127.0.0.1:{port}", proc
    finally:
        stop_process(proc)


def raw_connection(base: str, source: str = "127.0.0.1") -> socket.socket:
    host, port = base.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=5, source_address=(source, 0))
    return sock


def read_response(sock: socket.socket, timeout: float = 5) -> tuple[int, dict[str, str], bytes]:
    """(status, headers, body) of one HTTP/1.1 response with a Content-Length."""
    sock.settimeout(timeout)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise AssertionError(f"the connection closed before a response: {data!r}")
        data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:])}
    while len(body) < int(headers.get("content-length", "0")):
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return int(lines[0].split()[1]), headers, body


# ----- 1. request bodies ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_declared_oversize_body_is_refused_before_it_is_sent(tmp_path: Path) -> None:
    with server(tmp_path, MAX_BODY_BYTES="16384") as (base, _):
        with raw_connection(base) as sock:
            sock.sendall(
                b"POST /api/rooms HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                b"Content-Length: 400000000\r\n\r\n" + b"[" * 1024
            )  # 400 MB announced, 1 KB sent: the answer must not wait for the rest
            status, _, body = read_response(sock)
        assert status == 413
        assert json.loads(body)["code"] == "too_large"
        # Within the limit, the same route still works.
        assert httpx.post(f"{base}/api/rooms", json={"name": "Ann", "seats": 2}).status_code == 201


@pytest.mark.slow
def test_a_chunked_body_is_cut_off_at_the_limit(tmp_path: Path) -> None:
    with server(tmp_path, MAX_BODY_BYTES="16384") as (base, _):
        with raw_connection(base) as sock:
            sock.sendall(
                b"POST /api/rooms HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                b"Transfer-Encoding: chunked\r\n\r\n"
            )
            chunk = b"1000\r\n" + b" " * 4096 + b"\r\n"
            sent = 0
            stopped = False  # the server answered, or shut the connection
            answer: tuple[int, bytes] | None = None
            sock.setblocking(False)
            deadline = time.monotonic() + 20
            # Stream up to 64 MiB, stopping as soon as the server answers (or shuts the connection).
            while sent < 64 << 20 and time.monotonic() < deadline:
                readable, writable, _ = select.select([sock], [sock], [], 1)
                if readable:
                    stopped = True
                    break
                if writable:
                    try:
                        sent += sock.send(chunk)
                    except BlockingIOError:
                        pass
                    except (ConnectionResetError, BrokenPipeError):  # it answered and closed meanwhile
                        stopped = True
                        break
            sock.setblocking(True)
            with contextlib.suppress(ConnectionResetError):  # a reset can discard the answer we had not read
                status, _, body = read_response(sock)
                answer = (status, body)
        assert stopped, f"the server was still reading after {sent} bytes and 20 s"
        if answer is not None:
            assert answer[0] == 413 and json.loads(answer[1])["code"] == "too_large"
        assert sent > 16384, "the body was not even streamed past the limit: this check proves nothing"
        # A server that read the whole body would take all 64 MiB; on a busy machine the kernel's buffers and
        # a slow answer still let a few MiB through before the 413 arrives.
        assert sent < 16 << 20, f"the server read {sent} bytes of a body limited to 16 KiB before answering"


# ----- 2. trusted proxies --------------------------------------------------------------------------------


def create_room(base: str, source: str, forwarded_for: str) -> int:
    transport = httpx.HTTPTransport(local_address=source)
    with httpx.Client(base_url=base, transport=transport, timeout=10) as http:
        response = http.post(
            "/api/rooms", json={"name": "Ann", "seats": 2}, headers={"X-Forwarded-For": forwarded_for}
        )
    return response.status_code


async def welcomed(base: str, code: str, source: str, forwarded_for: str | None = None) -> str:
    """What a socket from ``source`` (claiming ``forwarded_for``) is answered first: welcome or an error."""
    url = base.replace("http", "ws", 1) + f"/ws/{code}"
    headers = {"X-Forwarded-For": forwarded_for} if forwarded_for else {}
    async with websockets.connect(url, additional_headers=headers, local_addr=(source, 0)) as ws:
        with contextlib.suppress(websockets.ConnectionClosed):  # a refused socket is closed at once
            await ws.send(json.dumps({"type": "hello"}))
        first = json.loads(await ws.recv(decode=True))
        return str(first["type"] if first["type"] == "welcome" else first["code"])


@pytest.mark.slow
async def test_behind_a_trusted_proxy_each_client_is_counted_apart(tmp_path: Path) -> None:
    """127.0.0.2 is the trusted proxy; the clients it forwards for are limited one by one."""
    limits = {"MAX_ROOMS_PER_ADDRESS": "2", "MAX_SOCKETS_PER_ADDRESS": "1"}
    with server(tmp_path, TRUSTED_PROXIES="127.0.0.2/32", **limits) as (base, _):
        proxy = "127.0.0.2"
        assert [create_room(base, proxy, "203.0.113.7") for _ in range(3)] == [201, 201, 429]
        assert create_room(base, proxy, "203.0.113.8") == 201, "another client behind the proxy was refused"
        code = httpx.post(f"{base}/api/rooms", json={"name": "Ann", "seats": 2}).json()["code"]
        url = base.replace("http", "ws", 1) + f"/ws/{code}"
        headers = {"X-Forwarded-For": "203.0.113.7"}
        async with websockets.connect(url, additional_headers=headers, local_addr=(proxy, 0)) as first:
            await first.send(json.dumps({"type": "hello"}))
            assert json.loads(await first.recv(decode=True))["type"] == "welcome"
            assert await welcomed(base, code, proxy, "203.0.113.7") == "rate_limited"
            assert await welcomed(base, code, proxy, "203.0.113.9") == "welcome"


@pytest.mark.slow
def test_a_forged_forwarded_header_is_ignored(tmp_path: Path) -> None:
    """Only 127.0.0.2 is trusted: a client on 127.0.0.1 that invents addresses is still one client."""
    with server(tmp_path, TRUSTED_PROXIES="127.0.0.2", MAX_ROOMS_PER_ADDRESS="2") as (base, _):
        forged = [create_room(base, "127.0.0.1", f"198.51.100.{i}") for i in range(1, 5)]
        assert forged == [201, 201, 429, 429]


@pytest.mark.slow
def test_no_forwarded_header_is_believed_by_default(tmp_path: Path) -> None:
    """Not even loopback's (uvicorn believes 127.0.0.1 unless told otherwise)."""
    with server(tmp_path, MAX_ROOMS_PER_ADDRESS="2") as (base, _):
        forged = [create_room(base, "127.0.0.1", f"198.51.100.{i}") for i in range(1, 5)]
        assert forged == [201, 201, 429, 429]


# ----- 5. idle connections and open files ----------------------------------------------------------------

HALF_SENT = (
    b"GET /healthz HTTP/1.1\r\nHost: t\r\n",  # headers never finished
    b"GET /ws/ABCD HTTP/1.1\r\nHost: t\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n",  # half a handshake
    b"POST /api/rooms HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\n{",  # a body never finished
    b"",  # nothing at all
)


@pytest.mark.slow
async def test_idle_and_half_sent_connections_are_closed(tmp_path: Path) -> None:
    """With 160 open files, 200 idle or half-sent connections would starve the server for good; with
    a 1 s deadline they are closed, and /healthz and a new WebSocket work again."""
    with server(tmp_path, open_files=(160, 160), REQUEST_TIMEOUT_SECONDS="1") as (base, _):
        code = httpx.post(f"{base}/api/rooms", json={"name": "Ann", "seats": 2}).json()["code"]
        idle: list[socket.socket] = []
        try:
            for i in range(200):
                sock = raw_connection(base)
                idle.append(sock)
                if HALF_SENT[i % len(HALF_SENT)]:
                    sock.sendall(HALF_SENT[i % len(HALF_SENT)])
            started = time.monotonic()
            response = None
            while response is None and time.monotonic() - started < 15:
                with contextlib.suppress(httpx.HTTPError):
                    response = httpx.get(f"{base}/healthz", timeout=2)
                if response is None:  # refused at once: look again in a moment, not in a loop of connections
                    await asyncio.sleep(0.1)
            assert response is not None and response.status_code == 200, "/healthz did not answer in 15 s"
            assert await welcomed(base, code, "127.0.0.1") == "welcome"
            still_open = [i for i, sock in enumerate(idle) if not closed_by_peer(sock)]
            assert not still_open, f"{len(still_open)} idle connections were never closed by the server"
        finally:
            for sock in idle:
                sock.close()


def closed_by_peer(sock: socket.socket, timeout: float = 5) -> bool:
    """True when the server closed this connection (it sends nothing to a request never finished)."""
    sock.settimeout(timeout)
    try:
        return sock.recv(4096) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def open_file_limit(pid: int) -> tuple[int, int]:
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            soft, hard = line.split()[3:5]
            return int(soft), int(hard)
    raise AssertionError("no open-file limit in /proc")


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/limits").exists(), reason="reads the limit from Linux's /proc")
def test_the_server_raises_its_open_file_limit_to_the_hard_one(tmp_path: Path) -> None:
    with server(tmp_path, open_files=(256, 4096)) as (_, proc):
        assert open_file_limit(proc.pid) == (4096, 4096)
