"""``WS_COMPRESSION``: the server offers permessage-deflate to WebSocket clients only when it is on, with
the window sizes of ``app.api.ws_deflate``; ``WS_MAX_MESSAGE_BYTES`` and ``WS_MAX_QUEUED_BYTES`` reach it."""

from __future__ import annotations

import pytest

from app.__main__ import build_server
from app.api.ws_deflate import BoundedDeflateProtocol
from tests.api.wsclient import Client, create_room, running_server, server_settings


@pytest.mark.parametrize("compression", [True, False])
async def test_websocket_compression_follows_the_setting(sqlite_url: str, compression: bool) -> None:
    with running_server(server_settings(sqlite_url, ws_compression=compression)) as base:
        created = await create_room(base, "Ann")
        client = await Client.connect(base, created["code"])  # the client offers permessage-deflate
        try:
            await client.hello(created["token"])  # a welcome and a state arrive, whichever way they travel
            assert client.state is not None
            accepted = client.ws.response.headers.get("Sec-WebSocket-Extensions", "")
            assert ("permessage-deflate" in accepted) is compression, accepted
            if compression:  # the client offered client_max_window_bits, as browsers do
                assert "server_max_window_bits=12" in accepted, accepted
                assert "client_max_window_bits=9" in accepted, accepted
                # The server keeps no decompressor per socket: each message is inflated on its own.
                assert "client_no_context_takeover" in accepted, accepted
                await client.send({"type": "ping"})
                await client.send({"type": "ping"})  # a second message, inflated with no context kept
                assert (await client.next("pong"))["type"] == "pong"
                assert (await client.next("pong"))["type"] == "pong"
        finally:
            await client.close()


def test_the_socket_memory_bounds_follow_the_settings(sqlite_url: str) -> None:
    settings = server_settings(sqlite_url, ws_max_message_bytes=20000, ws_max_queued_bytes=4096)
    config = build_server(settings).config
    assert config.ws_max_size == 20000  # the largest message, inflated no further (closed 1009 beyond)
    assert issubclass(config.ws, BoundedDeflateProtocol) and config.ws.max_queued_bytes == 4096
