"""Writes the documents the code generates (the protocol's JSON Schema, the OpenAPI document) to ``docs/``:
``python -m app.api.documents`` (``--check``: only say which are out of date). It builds the whole
application for the OpenAPI document, so it lives apart from the router the application includes: nothing
in app/ imports this module (no import circle)."""

from __future__ import annotations

from pathlib import Path

from app.config import Settings
from app.main import create_app
from app.protocol.schema import protocol_schema, render

DOCS = Path(__file__).resolve().parents[3] / "docs"
REGENERATE = "python -m app.api.documents"


def documents() -> dict[str, str]:
    """File name in ``docs/`` -> the text the code generates for it now."""
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
