"""Measure the WebSocket flood and size limits of a running server, as a client sees them.

    python -m app &                   # default settings: 20 messages/s, 8 KiB frames, 16 KiB messages
    python benchmarks/ws_limits.py http://127.0.0.1:8000

Opens one room (one POST /api/rooms), then, each on a fresh socket of its seat: bursts of pings sent at
once (pongs, rate_limited errors, and the close code if the socket is closed), and one frame of each size
(the error it gets, or the close code). The figures are quoted in docs/protocol.md ("Limits").
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from typing import Any

import httpx
import websockets

BURSTS = (40, 60, 88, 89, 90, 200)
SIZES = (8192, 8193, 16384, 16385, 65536, 1 << 20)


async def seated_socket(ws_url: str, token: str) -> Any:
    ws = await websockets.connect(ws_url, max_size=None)
    await ws.send(json.dumps({"type": "hello", "token": token}))
    while json.loads(await ws.recv())["type"] != "state":
        pass
    return ws


async def burst(ws_url: str, token: str, count: int) -> str:
    ws = await seated_socket(ws_url, token)
    with contextlib.suppress(websockets.ConnectionClosed):
        for _ in range(count):
            await ws.send('{"type": "ping"}')
    pongs = limited = 0
    try:
        while pongs + limited < count:
            message = json.loads(await asyncio.wait_for(ws.recv(), 5))
            pongs += message["type"] == "pong"
            limited += message.get("code") == "rate_limited"
        closed = "open"
    except websockets.ConnectionClosed:
        closed = f"closed {ws.close_code}"
    except TimeoutError:
        closed = "open (no more answers)"
    await ws.close()
    return f"{count:4d} pings at once: {pongs} pong, {limited} rate_limited, socket {closed}"


async def frame(ws_url: str, token: str, size: int) -> str:
    ws = await seated_socket(ws_url, token)
    text = '{"type": "chat", "text": "' + "a" * (size - 28) + '"}'
    assert len(text.encode()) == size
    try:
        await ws.send(text)
        answer = json.loads(await asyncio.wait_for(ws.recv(), 5))
        outcome = f"error {answer.get('code')}" if answer["type"] == "error" else answer["type"]
        await ws.send('{"type": "ping"}')
        outcome += ", socket open" if json.loads(await ws.recv())["type"] == "pong" else ""
    except websockets.ConnectionClosed:
        outcome = f"closed {ws.close_code}"
    await ws.close()
    return f"{size:8d}-byte frame: {outcome}"


async def main(base: str) -> None:
    async with httpx.AsyncClient(base_url=base) as http:
        created = (await http.post("/api/rooms", json={"name": "Meter", "seats": 2})).json()
    ws_url = base.replace("http", "ws", 1) + f"/ws/{created['code']}"
    for count in BURSTS:
        print(await burst(ws_url, created["token"], count))
        await asyncio.sleep(3)  # a fresh socket has a full bucket anyway; keep the server quiet between
    for size in SIZES:
        print(await frame(ws_url, created["token"], size))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000"))
