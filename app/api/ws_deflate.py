"""uvicorn's WebSocket protocol with permessage-deflate sized for this game's messages, reading no faster
than the app takes messages.

With uvicorn's settings (12 window bits both ways, memLevel 5) each socket keeps a compressor (server to
client) and a decompressor (client to server) for as long as it is open, about 50 KiB per socket, a quarter
of the server's memory at 1,000 sockets. Here a socket keeps neither: only the last 4 KiB it sent, from
which a compressor is made for each message (``deflate_window``). Measured on whole games' state messages
(``benchmarks/action_cost.py`` prints the figures):

- a 4 KiB window (12 bits) is the least that keeps compressing well: a state (about 2.7 KB) is mostly the
  previous state again, and deflate finds it only within the window (11 bits: 3.4x smaller, not 28x);
- memLevel 2 instead of 5 (a smaller hash table and literal buffer): 24 KiB instead of 38 KiB per
  compressor, 81 bytes per state instead of 80, the same CPU;
- the client's messages are a few small actions: a 512-byte window (9 bits) for them takes the
  decompressor from 12 KiB to 8 KiB. Browsers offer ``client_max_window_bits`` and so accept it; a client
  that does not offer it keeps its default window, as with uvicorn's own settings;
- and the client is asked not to keep its context between messages (``client_no_context_takeover``, which
  every client must honour): the server then inflates each message with a decompressor of its own, made
  for it and freed after it, instead of keeping one per socket for as long as it is open (7 KiB of each
  socket's memory, 7 MB at 1,000 sockets; a move is a few small messages, and their compression was
  worth little anyway).

**Memory a socket can make the server hold.** Compressed, a 64 KB message of spaces is about 100 bytes
on the wire. uvicorn hands everything one read from the socket (up to 256 KiB) to the parser, which inflates
every complete frame in it before reading pauses: one read could queue a hundred megabytes. Here the parser
is fed one frame at a time, and only while the messages waiting for the app hold less than
``max_queued_bytes`` (inflated); the rest of the read waits, raw, and the socket is not read again until
the app has taken what was queued. A message is inflated only up to uvicorn's ``ws_max_size``
(``WS_MAX_MESSAGE_BYTES``: websockets passes it to zlib as ``max_length``, so a bomb is never inflated
whole); a longer one closes the socket with 1009.

**Nothing left for the cycle collector.** websockets' sans-I/O protocol keeps its frame parser as a
generator (``parse``, then ``discard``) that never finishes, and whose frame holds the protocol: a reference
cycle, and the protocol holds the socket's compressor. The server's collector freezes whatever survives one
of its runs (``app/runtime.py``), so a cycle that dies after that is freed only by the hourly deep clean:
in the 30-minute soak every closed socket left its protocol behind (about 35 KiB, +50 MiB over 1,400
reconnects). When the connection is lost the parser is closed and replaced by one that holds nothing
(``release``), so reference counting frees each socket's protocol and compressor at once; the same for the
protocol uvicorn makes first and this class replaces.
"""

from __future__ import annotations

import asyncio
from collections.abc import Generator
from typing import Any

from uvicorn._types import ASGIReceiveEvent, ASGISendEvent
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.extensions.permessage_deflate import ServerPerMessageDeflateFactory
from websockets.server import ServerProtocol

from .deflate_window import WindowedDeflateFactory

SERVER_WINDOW_BITS = 12
CLIENT_WINDOW_BITS = 9
MEM_LEVEL = 2
END_OF_REQUEST = b"\r\n\r\n"
CLOSE_OPCODE = 0x8


def deflate_factory() -> ServerPerMessageDeflateFactory:
    # Between messages a socket keeps its 4 KiB window, not a compressor (``deflate_window``).
    return WindowedDeflateFactory(
        server_max_window_bits=SERVER_WINDOW_BITS,
        client_max_window_bits=CLIENT_WINDOW_BITS,
        client_no_context_takeover=True,
        compress_settings={"memLevel": MEM_LEVEL},
    )


def _stopped() -> Generator[None]:
    """A parser that holds nothing and reads nothing: what a released protocol is left with (any data
    still handed to it is ignored: the socket is gone)."""
    while True:
        yield


def release(conn: ServerProtocol) -> None:
    """Break the cycle between ``conn`` and its parser (a generator whose frame holds ``conn``), so that
    ``conn`` and its compressor are freed by reference counting once nothing else holds them."""
    conn.parser.close()
    conn.parser = _stopped()


def frame_size(data: bytes | bytearray) -> int | None:
    """The length of the WebSocket frame ``data`` starts with (header and payload, RFC 6455 5.2), or None
    while its header is incomplete. Whether the frame is valid is the parser's business."""
    if len(data) < 2:
        return None
    length, header = data[1] & 0x7F, 2
    if length >= 126:
        extra = 2 if length == 126 else 8
        if len(data) < 2 + extra:
            return None
        length, header = int.from_bytes(data[2 : 2 + extra], "big"), 2 + extra
    mask = 4 if data[1] & 0x80 else 0
    return header + mask + length


class Inbox:
    """The parts of ``asyncio.Queue`` uvicorn's protocol uses for the messages it hands the app
    (``put_nowait``, ``get``, ``empty``), in two lists that are empty while nothing waits: an
    ``asyncio.Queue`` holds four deques for the socket's life, about 3 KiB."""

    __slots__ = ("_items", "_getters")

    def __init__(self) -> None:
        self._items: list[ASGIReceiveEvent] = []
        self._getters: list[asyncio.Future[None]] = []

    def put_nowait(self, item: ASGIReceiveEvent) -> None:
        self._items.append(item)
        for getter in self._getters:
            if not getter.done():
                getter.set_result(None)
                break

    async def get(self) -> ASGIReceiveEvent:
        while not self._items:
            getter = asyncio.get_running_loop().create_future()
            self._getters.append(getter)
            try:
                await getter
            finally:
                self._getters.remove(getter)
        return self._items.pop(0)

    def empty(self) -> bool:
        return not self._items


class BoundedDeflateProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O websockets protocol with this game's permessage-deflate settings, which inflates
    at most ``max_queued_bytes`` (plus one message) of a socket's messages ahead of the app."""

    max_queued_bytes = 65536

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.config.ws_per_message_deflate:  # no socket has begun: its handshake has not been read yet
            replaced = self.conn
            self.conn = ServerProtocol(
                extensions=[deflate_factory()], max_size=self.config.ws_max_size, logger=replaced.logger
            )
            release(replaced)
        self.queue = Inbox()  # type: ignore[assignment]  # uvicorn's asyncio.Queue, lighter
        self.unread = bytearray()  # read from the socket, not yet given to the parser
        self.frame_left = 0  # bytes of the frame being parsed that the parser has not had yet
        self.queued_bytes = 0  # inflated bytes of the messages queued for the app
        self.dropping = False  # whether the frame being read is dropped (the app has closed the socket)
        self.dropped_bytes = 0

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        release(self.conn)  # the socket is gone: nothing is parsed any more

    def data_received(self, data: bytes) -> None:
        self.unread += data
        self.parse_unread()

    def parse_unread(self) -> None:
        """Give the parser the handshake, then one frame after another until the app has enough queued;
        pause reading the socket while a frame waits here."""
        while self.unread and self._may_parse() and not self.transport.is_closing():
            chunk = self._next_chunk()
            if chunk is None:
                break  # the rest of a request or frame header is still to come
            if not chunk:
                continue  # dropped
            self.conn.receive_data(chunk)
            if self.conn.parser_exc is not None:
                self.unread.clear()
                self.handle_parser_exception()
                return
            self.handle_events()
        if self.unread and not self._may_parse() and not self.read_paused:
            self.read_paused = True
            self.transport.pause_reading()

    def _may_parse(self) -> bool:
        # Once the app has closed the socket, uvicorn drops messages: parse on to read the peer's close.
        return self.conn.parser_exc is None and (self.queued_bytes < self.max_queued_bytes or self.close_sent)

    def _next_chunk(self) -> bytes | None:
        """Bytes of ``unread`` that end at or before the end of the request or of the next frame (empty:
        they were dropped; None: nothing to parse until more arrives)."""
        if not self.handshake_initiated:  # frames sent along with the request wait their turn too
            end = self.unread.find(END_OF_REQUEST)
            # Without the blank line yet, all but its possible first three bytes belong to the request.
            size = end + len(END_OF_REQUEST) if end >= 0 else len(self.unread) - (len(END_OF_REQUEST) - 1)
        else:
            if self.frame_left == 0:
                self.frame_left = frame_size(self.unread) or 0
                # Once the app has closed the socket only the peer's close matters: other frames are
                # dropped uninflated, and a peer that sends more than max_queued_bytes of them instead of
                # its close reply is cut off (it would be after uvicorn's close timeout, 10 s, anyway).
                self.dropping = self.close_sent and self.unread[0] & 0x0F != CLOSE_OPCODE
            size = min(self.frame_left, len(self.unread))
            self.frame_left -= size
            if self.dropping and size:
                del self.unread[:size]
                self.dropped_bytes += size
                if self.dropped_bytes > self.max_queued_bytes:  # no close reply coming: a flood
                    self.transport.close()
                return b""
        if size <= 0:
            return None
        chunk = bytes(self.unread[:size])
        del self.unread[:size]
        return chunk

    def send_receive_event_to_app(self) -> None:
        if not self.close_sent:  # otherwise uvicorn drops the message
            self.queued_bytes += sum(len(frame) for frame in self.frames)
        super().send_receive_event_to_app()

    async def send(self, message: ASGISendEvent) -> None:
        await super().send(message)
        if self.handshake_complete and "request" in vars(self):
            # The handshake is answered: its request and response (their headers parsed twice over, about 3
            # KiB) are not read again, and would stay for the socket's life. websockets' handshake parser
            # keeps the request too (a local of its generator, which goes on parsing frames): its headers
            # are emptied for that one.
            self.request.headers.clear()
            del self.request, self.response

    async def receive(self) -> ASGIReceiveEvent:
        message = await self.queue.get()
        if message["type"] == "websocket.receive":
            text, data = message.get("text"), message.get("bytes")
            size = len(text.encode()) if text is not None else len(data or b"")
            self.queued_bytes = self.queued_bytes - size if not self.queue.empty() else 0
            self.parse_unread()
        # uvicorn resumes reading once the queue is empty; here also only once no frame waits unparsed
        # (with the queue empty, parse_unread left at most part of a frame header).
        if self.read_paused and self.queue.empty():
            self.read_paused = False
            self.transport.resume_reading()
        return message


def websocket_protocol(max_queued_bytes: int) -> type[BoundedDeflateProtocol]:
    """The protocol class for uvicorn's ``ws`` setting, with this bound on the inflated bytes queued."""
    return type("BoundedDeflateProtocol", (BoundedDeflateProtocol,), {"max_queued_bytes": max_queued_bytes})
