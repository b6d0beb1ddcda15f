"""The FastAPI application: routes, error handlers, and start-up (migrations, store, rooms)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.middleware.gzip import GZipMiddleware
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from app import metrics
from app.api import (
    docs,
    documents,
    history,
    install,
    my_tables,
    ops,
    pages,
    passkeys,
    push,
    qr,
    rooms,
    standings,
    ws,
)
from app.api.body_limit import BodySizeLimitMiddleware
from app.api.errors import install_error_handlers
from app.api.lanes import open_lanes
from app.api.limits import AddressLimits
from app.api.security_headers import SecurityHeadersMiddleware
from app.config import Settings, get_settings
from app.logs import RequestContextMiddleware
from app.native_heap import trim_every
from app.push import Pusher
from app.rooms import Clock, RoomManager
from app.rooms.clock import clock_for
from app.runtime import watch_event_loop
from app.store import Store, run_migrations

log = logging.getLogger(__name__)


def create_app(settings: Settings | None = None, *, clock: Clock | None = None) -> FastAPI:
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if settings.run_migrations:
            await run_migrations(settings.database_url)
        store = Store(settings.database_url, pool_size=settings.db_pool_size, max_overflow=0)
        manager = RoomManager(
            store=store, settings=settings, clock=clock or clock_for(settings.clock_offset_file)
        )
        app.state.address_limits = AddressLimits.from_settings(settings, manager.clock)
        manager.start_sweeping()
        app.state.store, app.state.manager = store, manager
        # Turn notifications: its workers push off every room's lock; its key is made at its first need.
        app.state.pusher = pusher = Pusher(store, settings, clock=manager.clock.monotonic)
        pusher.start()
        manager.nudger = pusher
        manager.start()  # with REDIS_URL: joins the other processes
        watch = asyncio.create_task(watch_event_loop(), name="event-loop-watch")
        trim = asyncio.create_task(trim_every(settings.malloc_trim_seconds), name="malloc-trim")
        try:
            yield
        finally:
            watch.cancel()
            trim.cancel()
            await manager.close()
            await pusher.close()
            await store.close()

    app = FastAPI(
        title="Three Thirteen",
        summary="Play Three Thirteen (سه و سیزده), the eleven-round rummy game, with friends.",
        version="0.1.0",
        lifespan=lifespan,
        docs_url=None,  # app.api.docs serves the API page from this app, under the CSP
        redoc_url=None,
    )
    app.state.settings = settings

    def live() -> tuple[int, int]:
        manager: RoomManager | None = getattr(app.state, "manager", None)
        if manager is None:
            return 0, 0
        rooms_ = list(manager.rooms.values())
        return len(rooms_), sum(len(room.presence.connections) for room in rooms_)

    app.state.metrics = metrics.app_registry(live)
    # Added innermost first: unknown paths get the client's page, bodies are limited (413s get headers too),
    # then the real client, request ids, compression, and security headers on every answer.
    app.middleware("http")(pages.page_for_unknown_path)
    app.add_middleware(BodySizeLimitMiddleware, max_bytes=settings.max_body_bytes)
    if settings.proxies:  # the one place forwarding headers are believed (uvicorn's own is switched off)
        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=settings.proxies)
    app.add_middleware(RequestContextMiddleware)
    app.add_middleware(GZipMiddleware, minimum_size=500)  # pages, scripts and JSON: a slow phone link
    app.add_middleware(SecurityHeadersMiddleware)
    install_error_handlers(app)
    app.include_router(rooms.router)
    app.include_router(my_tables.router)
    app.include_router(history.router)
    app.include_router(standings.router)
    app.include_router(push.router)
    app.include_router(passkeys.router)
    app.include_router(ws.router)
    app.include_router(documents.router)
    app.include_router(qr.router)
    app.include_router(pages.router)
    app.include_router(install.router)
    app.include_router(ops.router)
    app.include_router(docs.router)
    app.mount("/static", pages.ClientFiles(directory=pages.STATIC_DIR, check_dir=False), name="static")
    open_lanes(app)  # a WebSocket passes only the middleware that acts on sockets
    return app
