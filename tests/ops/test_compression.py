"""``WS_COMPRESSION``: the server offers permessage-deflate to WebSocket clients only when it is on, with
the window sizes of ``app.api.ws_deflate``."""

from __future__ import annotations

import pytest

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
        finally:
            await client.close()
