"""A closed socket leaves nothing that only the cycle collector could free (issue 39's soak).

The server's collector freezes whatever survives each of its runs (``app/runtime.py``): an object that is
part of a reference cycle when it dies is freed only by the deep clean, at most once an hour. websockets'
sans-I/O protocol keeps its frame parser as a generator whose frame holds the protocol (a cycle), and the
protocol holds the socket's permessage-deflate compressor (about 32 KiB): in the 30-minute soak every
reconnect left one behind, +50 MiB. These tests count the protocols still alive after sockets closed, with
the collector off, as in the server where they are frozen.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from websockets.server import ServerProtocol

from app.api.ws_deflate import BoundedDeflateProtocol
from tests.api.wsclient import Client, create_room, running_server, server_settings
from tests.collector import alive, collector_off

SOCKETS = 8


async def settled(kind: type, at_most: int, seconds: float = 10.0) -> int:
    """The count of ``kind`` once the server has handled the closes (it does so on its own thread): polled
    until at most ``at_most``, or until ``seconds`` have passed."""
    deadline = time.monotonic() + seconds
    while (count := alive(kind)) > at_most and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    return count


@pytest.mark.parametrize("close", ["client", "server"])
async def test_a_closed_socket_leaves_no_protocol_behind(sqlite_url: str, close: str) -> None:
    """Sockets that said hello and closed (the client closing, or the server closing a socket whose hello was
    refused five times) leave no server protocol (nor the compressor it holds) alive without the collector."""
    with running_server(server_settings(sqlite_url)) as base:
        created = await create_room(base, "Ann")
        warm = await Client.connect(base, created["code"])  # whatever the first socket makes once
        await warm.hello(created["token"])
        await warm.close()
        await settled(ServerProtocol, 0)
        with collector_off():
            protocols, sockets = alive(ServerProtocol), alive(BoundedDeflateProtocol)
            for _ in range(SOCKETS):
                client = await Client.connect(base, created["code"])
                if close == "client":
                    await client.hello(created["token"])
                    await client.close()
                else:
                    for _ in range(5):  # a token that is nothing here: closed by the server at the fifth
                        await client.send({"type": "hello", "token": "x" * 43})
                    await asyncio.wait_for(client.closed.wait(), 10)
                    await client.close()
            del client
            assert await settled(ServerProtocol, protocols) <= protocols
            assert await settled(BoundedDeflateProtocol, sockets) <= sockets  # uvicorn's, around it
