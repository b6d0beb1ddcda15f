"""The browser client's pages (home, a room, its history and replays: static/index.html); health."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse, HTMLResponse, Response

STATIC_DIR = Path(__file__).resolve().parents[2] / "static"
router = APIRouter()

_PLACEHOLDER = (
    "<!doctype html><title>Three Thirteen</title><p>The client is not installed (static/index.html)."
)


def _index() -> Response:
    index = STATIC_DIR / "index.html"
    if index.is_file():
        return FileResponse(index, media_type="text/html")
    return HTMLResponse(_PLACEHOLDER)


@router.get("/", include_in_schema=False)
async def home() -> Response:
    return _index()


@router.get("/r/{code}", include_in_schema=False)
async def room_page(code: str) -> Response:
    return _index()


@router.get("/r/{code}/history", include_in_schema=False)
async def room_history_page(code: str) -> Response:
    return _index()


@router.get("/r/{code}/replay/{game_id}", include_in_schema=False)
async def replay_page(code: str, game_id: str) -> Response:
    return _index()


@router.get("/healthz", tags=["health"])
async def healthz() -> dict[str, str]:
    return {"status": "ok"}
