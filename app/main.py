"""The FastAPI application: routes, error handlers, and start-up (migrations, store, rooms)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from app import metrics
from app.api import history, ops, pages, rooms, ws
from app.api.errors import install_error_handlers
from app.config import Settings, get_settings
from app.logs import RequestContextMiddleware
from app.rooms import Clock, RoomManager
from app.store import Store, run_migrations

log = logging.getLogger(__name__)


def create_app(settings: Settings | None = None, *, clock: Clock | None = None) -> FastAPI:
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if settings.run_migrations:
            await run_migrations(settings.database_url)
        store = Store(settings.database_url, pool_size=settings.db_pool_size, max_overflow=0)
        manager = RoomManager(store=store, settings=settings, clock=clock)
        app.state.store, app.state.manager = store, manager
        try:
            yield
        finally:
            await manager.close()
            await store.close()

    app = FastAPI(
        title="Three Thirteen",
        summary="Play Three Thirteen (سه و سیزده), the eleven-round rummy game, with friends.",
        version="0.1.0",
        lifespan=lifespan,
    )
    app.state.settings = settings

    def live() -> tuple[int, int]:
        manager: RoomManager | None = getattr(app.state, "manager", None)
        if manager is None:
            return 0, 0
        rooms_ = list(manager.rooms.values())
        return len(rooms_), sum(len(room.connections) for room in rooms_)

    app.state.metrics = metrics.app_registry(live)
    app.add_middleware(RequestContextMiddleware)
    install_error_handlers(app)
    app.include_router(rooms.router)
    app.include_router(history.router)
    app.include_router(ws.router)
    app.include_router(pages.router)
    app.include_router(ops.router)
    app.mount("/static", StaticFiles(directory=pages.STATIC_DIR, check_dir=False), name="static")
    return app
