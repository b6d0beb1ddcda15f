"""permessage-deflate as the server negotiates it (``app.api.ws_deflate``): a socket keeps its last 4 KiB sent
between messages, not a compressor (``app.api.deflate_window``), and the client reads the same bytes it
would have read from websockets' own extension."""

from __future__ import annotations

import json
import random
import tracemalloc

from websockets.extensions.permessage_deflate import PerMessageDeflate
from websockets.frames import TEXT, Frame

from app.api.ws_deflate import MEM_LEVEL, SERVER_WINDOW_BITS, deflate_factory

# What a browser offers (client_max_window_bits, no value): the server answers with its own window sizes.
BROWSER_OFFER = [("client_max_window_bits", None)]


def negotiated() -> PerMessageDeflate:
    _response, extension = deflate_factory().process_request_params(BROWSER_OFFER, [])
    return extension


def messages(count: int, seed: int = 1) -> list[bytes]:
    """States that change a little from one to the next (as a game's do), acks, and some larger than the
    window, in a random order."""
    rng = random.Random(seed)
    hand = [f"{rank}{suit}" for rank in range(2, 14) for suit in "SHDC"]
    out = []
    for n in range(count):
        rng.shuffle(hand)
        kind = rng.random()
        if kind < 0.2:
            out.append(json.dumps({"type": "ack", "id": f"a{n}"}).encode())
        elif kind < 0.3:
            out.append(json.dumps({"type": "log", "lines": [hand] * 40, "n": n}).encode())  # about 10 KB
        else:
            state = {"type": "state", "version": n, "hand": hand[:9], "players": ["Ann", "Bob", "Cy"] * 20}
            out.append(json.dumps(state).encode())
    return out


def test_the_client_reads_every_message_and_the_same_bytes_as_websockets_own() -> None:
    server = negotiated()
    # websockets' own extension with the same settings, keeping its compressor: the bytes to expect.
    reference = PerMessageDeflate(True, False, 9, SERVER_WINDOW_BITS, {"memLevel": MEM_LEVEL})
    # The client's side: it keeps its decompressor (the server's context is taken over from message to
    # message) and sends with no context kept (client_no_context_takeover).
    client = PerMessageDeflate(False, True, SERVER_WINDOW_BITS, 9)
    for data in messages(300):
        sent = server.encode(Frame(TEXT, data))
        assert sent.rsv1 and bytes(sent.data) == bytes(reference.encode(Frame(TEXT, data)).data)
        assert client.decode(sent).data == data


def test_between_messages_a_socket_keeps_its_window_not_a_compressor() -> None:
    extension = negotiated()
    assert not hasattr(extension, "encoder")
    for data in messages(20):
        extension.encode(Frame(TEXT, data))
        assert not hasattr(extension, "encoder")  # main kept websockets' compressor, about 23 KiB
        assert len(extension.window) <= 1 << SERVER_WINDOW_BITS


def test_a_socket_that_has_sent_holds_a_few_kib_for_its_compression() -> None:
    sockets = 200
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        kept = []
        for data in messages(sockets, seed=2):
            extension = negotiated()
            extension.encode(Frame(TEXT, data))
            kept.append(extension)
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    per_socket = sum(stat.size_diff for stat in after.compare_to(before, "filename")) / sockets
    assert per_socket < 6 * 1024, per_socket  # websockets' own extension: about 24 KiB
