"""Operations: readiness (the database answers, and Redis when configured) and Prometheus metrics."""

from __future__ import annotations

import asyncio
import logging

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from app import metrics
from app.protocol import http_status

from .errors import ErrorPublic

log = logging.getLogger(__name__)
router = APIRouter(tags=["health"])
READY_TIMEOUT_SECONDS = 3.0


@router.get(
    "/readyz",
    responses={
        503: {"model": ErrorPublic, "description": "the database or Redis does not answer, or shutting down"}
    },
)
async def readyz(request: Request) -> JSONResponse:
    """200 when this process can serve tables: its database answers, so does Redis when it is configured
    (``{"status": "ok", "redis": "ok"}``), and it is not shutting down."""
    store = getattr(request.app.state, "store", None)
    manager = getattr(request.app.state, "manager", None)
    if store is None or manager is None or manager.draining:
        return _not_ready("the server is starting or shutting down")
    try:
        await asyncio.wait_for(store.ping(), READY_TIMEOUT_SECONDS)
    except Exception as exc:  # any failure to answer means: not ready
        log.warning("readiness check failed: %s", type(exc).__name__)
        return _not_ready("the database does not answer")
    if manager.redis is None:
        return JSONResponse({"status": "ok"})
    try:
        await asyncio.wait_for(manager.redis.ping(), READY_TIMEOUT_SECONDS)
    except Exception as exc:  # without Redis this process's tables would not hear the others
        log.warning("readiness check failed (Redis): %s", type(exc).__name__)
        return _not_ready("Redis does not answer")
    if not manager.redis.up:
        return _not_ready("not subscribed to Redis yet")
    return JSONResponse({"status": "ok", "redis": "ok"})


def _not_ready(message: str) -> JSONResponse:
    return JSONResponse({"code": "not_ready", "message": message}, status_code=http_status("not_ready"))


@router.get("/metrics", response_class=Response, responses={200: {"content": {"text/plain": {}}}})
async def prometheus_metrics(request: Request) -> Response:
    """Prometheus text format: open tables and sockets, actions applied, action latency, errors by code."""
    return Response(metrics.render(request.app.state.metrics), media_type=metrics.CONTENT_TYPE)
