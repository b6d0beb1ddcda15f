"""uvicorn's WebSocket protocol with permessage-deflate sized for this game's messages.

Each socket keeps a compressor (server to client) and a decompressor (client to server) for as long as it
is open; with uvicorn's settings (12 window bits both ways, memLevel 5) they hold about 50 KiB per socket,
a quarter of the server's memory at 1,000 sockets. Measured on whole games' state messages
(``benchmarks/action_cost.py`` prints the figures):

- a 4 KiB window (12 bits) is the least that keeps compressing well: a state (about 2.7 KB) is mostly the
  previous state again, and deflate finds it only within the window (11 bits: 3.4x smaller, not 28x);
- memLevel 2 instead of 5 (a smaller hash table and literal buffer): 24 KiB instead of 38 KiB per
  compressor, 81 bytes per state instead of 80, the same CPU;
- the client's messages are a few small actions: a 512-byte window (9 bits) for them takes the
  decompressor from 12 KiB to 8 KiB. Browsers offer ``client_max_window_bits`` and so accept it; a client
  that does not offer it keeps its default window, as with uvicorn's own settings.
"""

from __future__ import annotations

from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.extensions.permessage_deflate import ServerPerMessageDeflateFactory
from websockets.server import ServerProtocol

SERVER_WINDOW_BITS = 12
CLIENT_WINDOW_BITS = 9
MEM_LEVEL = 2


def deflate_factory() -> ServerPerMessageDeflateFactory:
    return ServerPerMessageDeflateFactory(
        server_max_window_bits=SERVER_WINDOW_BITS,
        client_max_window_bits=CLIENT_WINDOW_BITS,
        compress_settings={"memLevel": MEM_LEVEL},
    )


class LeanDeflateProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O websockets protocol; only the permessage-deflate settings differ."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.config.ws_per_message_deflate:  # no socket has begun: its handshake has not been read yet
            self.conn = ServerProtocol(
                extensions=[deflate_factory()], max_size=self.config.ws_max_size, logger=self.conn.logger
            )
