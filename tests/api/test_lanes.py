"""The socket lane (``app.api.lanes``): a connected socket's call passes only the middleware that acts on
sockets, and every middleware it skips hands a socket straight on anyway (so skipping it changes nothing
but the memory a socket holds); and the socket keeps no handshake once it is answered (``ws_deflate``)."""

from __future__ import annotations

import gc
import types
from collections import Counter
from typing import Any

from starlette.types import Message, Receive, Scope, Send

from app.api.lanes import SOCKET_MIDDLEWARE
from app.api.ws_deflate import BoundedDeflateProtocol
from app.main import create_app
from tests.api.wsclient import Client, create_room, running_server, server_settings

# The coroutines a socket's call kept suspended for its whole life on main, none of which act on a socket.
HTTP_ONLY = {
    "ServerErrorMiddleware.__call__",
    "SecurityHeadersMiddleware.__call__",
    "GZipMiddleware.__call__",
    "BodySizeLimitMiddleware.__call__",
    "BaseHTTPMiddleware.__call__",
    "AsyncExitStackMiddleware.__call__",
    "ExceptionTelemetryMiddleware.__call__",
    "get_websocket_app.<locals>.app",  # FastAPI's route: its solved dependencies and exit stacks
}


def suspended() -> Counter[str]:
    """The qualified names of the suspended coroutines in the process, counted."""
    gc.collect()
    return Counter(
        obj.cr_code.co_qualname
        for obj in gc.get_objects()
        if isinstance(obj, types.CoroutineType) and obj.cr_frame is not None
    )


async def test_a_connected_socket_keeps_only_the_middleware_that_acts_on_sockets(sqlite_url: str) -> None:
    settings = server_settings(sqlite_url, trusted_proxies="127.0.0.1")  # the forwarding middleware too
    sockets = 2
    with running_server(settings) as base:
        created = [await create_room(base, name) for name in ("Ann", "Bob")]
        before = suspended()  # the server's own (its lifespan passes every middleware, once)
        clients = [await Client.connect(base, room["code"]) for room in created]
        try:
            for client, room in zip(clients, created, strict=True):
                await client.hello(room["token"])
            per_sockets = suspended() - before
            protocols = [obj for obj in gc.get_objects() if isinstance(obj, BoundedDeflateProtocol)]
        finally:
            for client in clients:
                await client.close()
    assert per_sockets["table_socket"] == sockets, per_sockets  # with the middleware that acts on sockets:
    for name in ("RequestContextMiddleware.__call__", "ProxyHeadersMiddleware.__call__"):
        assert per_sockets[name] == sockets, per_sockets
    assert per_sockets["ExceptionMiddleware.__call__"] == sockets, per_sockets
    assert not HTTP_ONLY & set(per_sockets), HTTP_ONLY & set(per_sockets)
    # Nor its handshake, once answered (uvicorn kept the request and the response, headers and all).
    assert len(protocols) == sockets
    assert not any(hasattr(protocol, "request") or hasattr(protocol, "response") for protocol in protocols)
    # websockets' handshake parser goes on parsing frames, the request a local of its frame: emptied.
    kept = [protocol.conn.parser.gi_frame.f_locals.get("request") for protocol in protocols]
    assert all(request is None or not request.headers for request in kept), kept


async def test_every_middleware_a_socket_skips_hands_a_socket_straight_on(sqlite_url: str) -> None:
    app = create_app(server_settings(sqlite_url, trusted_proxies="127.0.0.1"))
    skipped = [m for m in app.user_middleware if m.cls not in SOCKET_MIDDLEWARE]
    assert len(skipped) >= 4, skipped  # the page for unknown paths, body limit, compression, headers
    scope: Scope = {"type": "websocket", "path": "/ws/ABCD2345", "headers": [], "app": app}

    async def receive() -> Message:
        return {"type": "websocket.connect"}

    async def send(message: Message) -> None:
        raise AssertionError(f"a skipped middleware sent {message}")

    for middleware in skipped:
        seen: list[tuple[Scope, Receive, Send]] = []

        async def inner(scope: Scope, receive: Receive, send: Send, seen: list[Any] = seen) -> None:
            seen.append((scope, receive, send))

        await middleware.cls(inner, *middleware.args, **middleware.kwargs)(dict(scope), receive, send)
        assert len(seen) == 1, middleware
        passed_scope, passed_receive, passed_send = seen[0]
        assert passed_scope == scope and passed_receive is receive and passed_send is send, middleware
