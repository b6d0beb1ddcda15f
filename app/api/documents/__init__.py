"""The machine-readable documents the server publishes (the WebSocket messages' JSON Schema, the client's
fixed values and the OpenAPI document) and their routes. ``python -m app.api.documents`` (``writer.py``)
writes the schema and the OpenAPI document to ``docs/``."""

from __future__ import annotations

from functools import cache
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from app.protocol.client_config import CLIENT_CONFIG_URL, ClientConfig, client_config
from app.protocol.schema import SCHEMA_URL, protocol_schema

router = APIRouter(tags=["protocol"])


@cache
def _protocol_schema() -> dict[str, Any]:
    return protocol_schema()


@router.get(SCHEMA_URL, response_model=None)
async def protocol_schema_document() -> JSONResponse:
    """The JSON Schema (2020-12) of every WebSocket message in both directions (``$defs/ClientMessage``,
    ``$defs/ServerMessage``), generated from the server's own models; docs/protocol.md explains it."""
    return JSONResponse(_protocol_schema(), media_type="application/schema+json")


@router.get(
    CLIENT_CONFIG_URL,
    response_model=ClientConfig,
    responses={200: {"content": {"application/json": {"example": client_config().model_dump(mode="json")}}}},
)
async def client_config_document() -> ClientConfig:
    """The values a client builds its forms from: seat bounds, bot levels, quick reactions, the default
    house rules and the options' choices (the browser client reads the same document from its page)."""
    return client_config()
