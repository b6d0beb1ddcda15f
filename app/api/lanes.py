"""Two lanes through the middleware: an HTTP request passes all of it; a WebSocket only the middleware that
acts on sockets, then the router.

A socket's ASGI call lasts as long as the socket, and every middleware it passes stays suspended in it for
that long: a coroutine and what its frame holds, for each of 1,000 sockets. Most of this app's middleware
is for HTTP answers and hands a socket straight on (``tests/api/test_lanes.py`` checks each one): Starlette's
error page, the security headers, compression, the body limit, the client's page for unknown paths,
FastAPI's exception telemetry, body limit and per-request exit stack. A socket skips them. It keeps its
request id and room code for the logs (``RequestContextMiddleware``), the real client address behind a
trusted proxy, which the per-address limits count (``ProxyHeadersMiddleware``, when configured), and the
exception handlers (Starlette's ``ExceptionMiddleware``), as before.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from starlette.middleware.exceptions import ExceptionMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from app.logs import RequestContextMiddleware

# The user middleware a socket passes (in the order the app has them); the rest is for HTTP answers only.
SOCKET_MIDDLEWARE: tuple[type[Any], ...] = (RequestContextMiddleware, ProxyHeadersMiddleware)


class Lanes:
    """ASGI: WebSockets to ``sockets``, everything else (HTTP, lifespan) to ``http``."""

    def __init__(self, http: ASGIApp, sockets: ASGIApp) -> None:
        self.http, self.sockets = http, sockets

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            await self.sockets(scope, receive, send)
        else:
            await self.http(scope, receive, send)


def socket_lane(app: FastAPI) -> ASGIApp:
    """The router behind the exception handlers and ``app``'s middleware of ``SOCKET_MIDDLEWARE``."""
    # As Starlette's own stack: the handlers of 500 and Exception belong to its error page, HTTP only.
    handlers = {key: value for key, value in app.exception_handlers.items() if key not in (500, Exception)}
    lane: ASGIApp = ExceptionMiddleware(app.router, handlers=handlers, debug=app.debug)
    for middleware in reversed(app.user_middleware):
        factory: Any = middleware.cls  # a class here (Starlette types it as any factory of middleware)
        if factory in SOCKET_MIDDLEWARE:
            lane = factory(lane, *middleware.args, **middleware.kwargs)
    return lane


def open_lanes(app: FastAPI) -> None:
    """Build ``app``'s middleware stack now, with the lane for sockets (after its last middleware is added:
    Starlette refuses middleware added after this)."""
    app.middleware_stack = Lanes(app.build_middleware_stack(), socket_lane(app))
