"""A WebSocket client that floods the server with permessage-deflate messages: thousands of compressed
messages in one write, which the server receives in a few reads (a 16 KB message of spaces is about 60
bytes on the wire). The handshake is websockets' sans-I/O client; the frames are built here, once per
message (compressed with no reference to earlier messages, so one frame may be sent any number of times),
and nothing paces or reads what is sent."""

from __future__ import annotations

import asyncio
import contextlib
import os
import zlib
from pathlib import Path

from websockets.client import ClientProtocol
from websockets.extensions.permessage_deflate import ClientPerMessageDeflateFactory
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.protocol import State
from websockets.uri import parse_uri


def padded_ping(size: int) -> str:
    """A ``ping`` of exactly ``size`` bytes (JSON padded with spaces): compresses to almost nothing."""
    head = '{"type": "ping"'
    return head + " " * (size - len(head) - 1) + "}"


def compressed_frame(text: str, window_bits: int = 9) -> bytes:
    """One masked text frame holding ``text`` compressed (RFC 7692: RSV1 set, the flush's trailing
    ``00 00 ff ff`` left off), valid whatever the receiver inflated before."""
    compressor = zlib.compressobj(wbits=-window_bits)
    payload = (compressor.compress(text.encode()) + compressor.flush(zlib.Z_SYNC_FLUSH))[:-4]
    if len(payload) < 126:
        header = bytes([0xC1, 0x80 | len(payload)])
    elif len(payload) < 1 << 16:
        header = bytes([0xC1, 0x80 | 126]) + len(payload).to_bytes(2, "big")
    else:
        header = bytes([0xC1, 0x80 | 127]) + len(payload).to_bytes(8, "big")
    mask = os.urandom(4)
    return header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def rss_kib(pid: int) -> dict[str, int]:
    """The process's resident memory now (``VmRSS``) and at its peak (``VmHWM``), in KiB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            fields[name] = int(value.split()[0])
    return fields


class DeflateFlooder:
    """One socket to ``ws_url`` that negotiated permessage-deflate; sends without reading."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, conn: ClientProtocol):
        self.reader, self.writer, self.conn = reader, writer, conn
        self.sent_bytes = 0  # on the wire, compressed

    @classmethod
    async def connect(cls, ws_url: str, timeout: float = 10) -> DeflateFlooder:
        uri = parse_uri(ws_url)
        conn = ClientProtocol(uri, extensions=[ClientPerMessageDeflateFactory(client_max_window_bits=True)])
        reader, writer = await asyncio.open_connection(uri.host, uri.port)
        conn.send_request(conn.connect())
        writer.write(b"".join(conn.data_to_send()))
        async with asyncio.timeout(timeout):
            while conn.state is State.CONNECTING:
                data = await reader.read(65536)
                if not data:
                    raise ConnectionError("the server closed the socket during the handshake")
                conn.receive_data(data)
        response = next((e for e in conn.events_received() if isinstance(e, Response)), None)
        if conn.state is not State.OPEN or response is None:
            raise ConnectionError(f"handshake refused: {conn.handshake_exc!r}")
        if "permessage-deflate" not in response.headers.get("Sec-WebSocket-Extensions", ""):
            raise ConnectionError("the server did not accept permessage-deflate")
        return cls(reader, writer, conn)

    async def send(self, text: str, count: int = 1) -> None:
        """``count`` copies of ``text``, compressed, in one write; waits until the socket takes them."""
        data = compressed_frame(text) * count
        self.sent_bytes += len(data)
        self.writer.write(data)
        await self.writer.drain()

    async def close_code(self, timeout: float = 10) -> int | None:
        """Read until the server closes the socket; its close code (None: closed without one)."""
        async with asyncio.timeout(timeout):
            while True:
                data = await self.reader.read(65536)
                if not data:
                    self.conn.receive_eof()
                else:
                    self.conn.receive_data(data)
                for event in self.conn.events_received():
                    if isinstance(event, Frame) and event.opcode is Opcode.CLOSE:
                        return self.conn.close_rcvd.code if self.conn.close_rcvd else None
                if not data:
                    return None

    def close_reason(self) -> str:
        return self.conn.close_rcvd.reason if self.conn.close_rcvd else ""

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(OSError, ConnectionError):
            await self.writer.wait_closed()
