"""The machine-readable documents the server publishes (the WebSocket messages' JSON Schema, the client's
fixed values and the OpenAPI document), their routes, and ``python -m app.api.documents``, which writes the
schema and the OpenAPI document to ``docs/``."""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from app.protocol.client_config import CLIENT_CONFIG_URL, ClientConfig, client_config
from app.protocol.schema import SCHEMA_URL, protocol_schema, render

router = APIRouter(tags=["protocol"])
DOCS = Path(__file__).resolve().parents[2] / "docs"
REGENERATE = "python -m app.api.documents"


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


def documents() -> dict[str, str]:
    """File name in ``docs/`` -> the text the code generates for it now."""
    from app.config import Settings
    from app.main import create_app  # the app includes this module's router

    openapi = create_app(Settings(_env_file=None)).openapi()
    return {"protocol.schema.json": render(protocol_schema()), "openapi.json": render(openapi)}


def main(argv: list[str]) -> int:
    """Write every document to ``docs/``; with ``--check``, only say which ones are out of date."""
    stale = []
    for name, text in documents().items():
        path = DOCS / name
        if path.is_file() and path.read_text(encoding="utf-8") == text:
            continue
        stale.append(name)
        if "--check" not in argv:
            path.write_text(text, encoding="utf-8")
    verb = "out of date" if "--check" in argv else "written"
    for name in stale:
        print(f"docs/{name}: {verb}")
    return 1 if stale and "--check" in argv else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
