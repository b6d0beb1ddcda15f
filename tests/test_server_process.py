"""The test servers' ports: chosen outside the kernel's ephemeral range, and a server is taken as ready only
when the answering socket is its own (another test's server on the same port once passed for it)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

from tests.server_process import _LISTEN_PORTS, free_port, listens


def test_a_free_port_is_outside_the_ephemeral_range_and_free() -> None:
    with open("/proc/sys/net/ipv4/ip_local_port_range", encoding="ascii") as ranges:
        ephemeral_low = int(ranges.read().split()[0])
    for _ in range(20):
        port = free_port()
        assert _LISTEN_PORTS[0] <= port <= _LISTEN_PORTS[1] < ephemeral_low
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", port))


def test_listens_tells_whose_socket_answers_on_a_port() -> None:
    port, other = free_port(), free_port()
    script = (
        "import socket, sys, time; s = socket.socket(); s.bind(('127.0.0.1', int(sys.argv[1]))); s.listen();"
        " print('up', flush=True); time.sleep(30)"
    )
    child = subprocess.Popen([sys.executable, "-c", script, str(other)], stdout=subprocess.PIPE)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == b"up"
        with socket.socket() as mine:
            mine.bind(("127.0.0.1", port))
            assert not listens(os.getpid(), port), "bound, not yet listening"
            mine.listen()
            assert listens(os.getpid(), port), "this process's own"
            assert listens(child.pid, other) and not listens(child.pid, port), "another's is not the child's"
            assert listens(os.getpid(), other), "a child's socket counts for its parent (a server's workers)"
    finally:
        child.kill()
        child.wait()
