"""Compressed WebSocket messages cannot make the server hold much memory: each socket has at most
``WS_MAX_QUEUED_BYTES`` of inflated messages waiting for the app, and a message over
``WS_MAX_MESSAGE_BYTES`` closes its socket with 1009 (against a real server process, its memory read from
``/proc``). The exact target (50 sockets for 20 s) is ``benchmarks/ws_memory.py``."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import ValidationError

from app.config import Settings
from tests.api.wsclient import Client, create_room, free_port
from tests.server_process import server_env, start, stop_process, wait_ready

from .deflate_flood import DeflateFlooder, padded_ping, rss_kib

FLOODERS = 4
MESSAGE_BYTES = 16000  # under WS_MAX_MESSAGE_BYTES (16 KiB): the server inflates each whole
MESSAGES = 4000  # about 240 KB on the wire per socket; 64 MB inflated
# Generous: the code before the bound grew by about 28 MB per flooding socket (110 MB for these four).
MAX_RISE_MIB = 30


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, int]]:
    """``python -m app`` with the documented message rate; (base URL, process id)."""
    port = free_port()
    env = server_env(f"sqlite+aiosqlite:///{tmp_path / 'memory.db'}", port, MAX_MESSAGES_PER_SECOND="20")
    proc = start([sys.executable, "-m", "app"], env, tmp_path / "server.log")
    base = f"http://127.0.0.1:{port}"
    try:
        wait_ready(proc, base, tmp_path / "server.log", timeout=120)  # a busy machine migrates slowly
        yield base, proc.pid
    finally:
        stop_process(proc)


@pytest.mark.slow
async def test_floods_of_compressed_messages_hold_little_memory(server: tuple[str, int]) -> None:
    base, pid = server
    created = await create_room(base, "Ann")
    player = await Client.connect(base, created["code"])
    await player.hello(created["token"])
    ws_url = base.replace("http", "ws") + f"/ws/{created['code']}"
    flooders = [await DeflateFlooder.connect(ws_url) for _ in range(FLOODERS)]
    before = rss_kib(pid)["VmHWM"]
    await asyncio.gather(*(f.send(padded_ping(MESSAGE_BYTES), MESSAGES) for f in flooders))
    codes = await asyncio.gather(*(f.close_code(30) for f in flooders))
    rise_mib = (rss_kib(pid)["VmHWM"] - before) / 1024
    sent_kb = sum(f.sent_bytes for f in flooders) / 1000
    assert rise_mib <= MAX_RISE_MIB, (
        f"{sent_kb:.0f} KB compressed raised the peak memory by {rise_mib:.0f} MiB"
    )
    assert codes == [1008] * FLOODERS, codes  # the flood guard closed each, as it would an uncompressed flood
    # The player at the table noticed nothing.
    await player.send({"type": "ping"})
    await player.next("pong", timeout=5)
    await player.close()


@pytest.mark.slow
async def test_a_message_over_the_limit_closes_the_socket_before_it_is_inflated(
    server: tuple[str, int],
) -> None:
    base, pid = server
    created = await create_room(base, "Ann")
    ws_url = base.replace("http", "ws") + f"/ws/{created['code']}"
    flooder = await DeflateFlooder.connect(ws_url)
    await flooder.send(padded_ping(64984))  # about 100 bytes on the wire
    assert await flooder.close_code() == 1009
    assert "16384 bytes" in flooder.close_reason(), flooder.close_reason()
    # One 64 KB message at the limit's edge of the old transport: an honest client's next socket works.
    player = await Client.connect(base, created["code"])
    await player.hello(created["token"])
    await player.send({"type": "ping"})
    await player.next("pong", timeout=5)
    await player.close()
    await flooder.close()


def test_the_message_limit_is_at_least_the_frame_limit() -> None:
    with pytest.raises(ValidationError, match="WS_MAX_MESSAGE_BYTES"):
        Settings(max_frame_bytes=8192, ws_max_message_bytes=4096)
    assert Settings().ws_max_message_bytes >= Settings().max_frame_bytes
