"""permessage-deflate that keeps no compressor between a socket's messages, only the window its client keeps.

With context takeover (the server's messages compress against the ones before: a state is mostly the
previous state again, 34x smaller on the wire) websockets keeps one zlib compressor per socket for the
socket's life: about 23 KiB with this server's settings (a 4 KiB window, memLevel 2), the largest single
part of a connected socket's memory. What the client needs from that compressor is only its history: the
client's decompressor holds the last ``2 ** server_max_window_bits`` bytes the server sent, and a
back-reference may reach anywhere in them. So this extension keeps those bytes (at most 4 KiB) and, for each
message, makes a compressor primed with them (zlib's preset dictionary: the compressor refers back into it
exactly as into data it compressed itself), compresses, and frees it. The bytes on the wire are the same
(the deflate blocks of one message follow the last one's sync flush, as the client's decoder expects);
making and priming a compressor costs a few microseconds a message
(``docs/benchmarks.md``, "Issue 38: lean per socket").
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import Any

from websockets.extensions.base import Extension
from websockets.extensions.permessage_deflate import PerMessageDeflate, ServerPerMessageDeflateFactory
from websockets.frames import CONT, CTRL_OPCODES, Frame
from websockets.typing import ExtensionParameter


class WindowedDeflate(PerMessageDeflate):
    """``PerMessageDeflate`` whose compressor lives only while a message is encoded; between messages the
    socket holds ``window``, the bytes the client's decompressor may still refer back to."""

    def __init__(
        self,
        remote_no_context_takeover: bool,
        local_no_context_takeover: bool,
        remote_max_window_bits: int,
        local_max_window_bits: int,
        compress_settings: dict[Any, Any] | None = None,
    ) -> None:
        # No compressor made here (websockets would make one to keep): only the settings are taken.
        super().__init__(
            remote_no_context_takeover,
            True,
            remote_max_window_bits,
            local_max_window_bits,
            compress_settings,
        )
        self.local_no_context_takeover = local_no_context_takeover
        self.window = b""  # the end of what was sent, as the client's decompressor holds it
        self.window_size = 1 << local_max_window_bits

    def encode(self, frame: Frame) -> Frame:
        if frame.opcode in CTRL_OPCODES or self.local_no_context_takeover:
            return super().encode(frame)  # a fresh compressor for each message anyway
        if frame.opcode is not CONT:
            self.encoder = self._primed_compressor()
        encoded = super().encode(frame)
        self.window = (self.window + frame.data)[-self.window_size :]
        if frame.fin:
            del self.encoder
        return encoded

    def _primed_compressor(self) -> Any:
        settings = {"wbits": -self.local_max_window_bits, **self.compress_settings}
        if self.window:
            return zlib.compressobj(zdict=self.window, **settings)
        return zlib.compressobj(**settings)


class WindowedDeflateFactory(ServerPerMessageDeflateFactory):
    """websockets' server-side factory (the same negotiation), making ``WindowedDeflate`` extensions."""

    def process_request_params(
        self, params: Sequence[ExtensionParameter], accepted_extensions: Sequence[Extension]
    ) -> tuple[list[ExtensionParameter], PerMessageDeflate]:
        response, negotiated = super().process_request_params(params, accepted_extensions)
        windowed = WindowedDeflate(
            negotiated.remote_no_context_takeover,
            negotiated.local_no_context_takeover,
            negotiated.remote_max_window_bits,
            negotiated.local_max_window_bits,
            negotiated.compress_settings,
        )
        return response, windowed
