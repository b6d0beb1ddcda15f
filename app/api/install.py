"""Installing the client as an app: its web app manifests (one per language, the same app) and its service
worker (static/sw.js, served at ``/sw.js`` with the current build's files named in it, so a new deploy is a
new worker)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response

from . import pages

router = APIRouter()

THEME = "#0d3b2e"  # the page's <meta name="theme-color">
BACKGROUND = "#0a3d2e"  # the page's own background (app.css --felt-dark): the splash screen
NAMES = {
    "en": {
        "name": "Three Thirteen",
        "short_name": "Three Thirteen",
        "description": "The rummy card game Three Thirteen, with friends or bots.",
    },
    "fa": {
        "name": "سه و سیزده",
        "short_name": "سه و سیزده",
        "description": "بازی ورق سه و سیزده (رامی)، با دوستان یا بات‌ها.",
    },
}
DIRECTIONS = {"en": "ltr", "fa": "rtl"}
ICONS = (  # static/icons/, drawn by deploy/make_icons.py
    ("icons/icon-192.png", "192x192", "any"),
    ("icons/icon-512.png", "512x512", "any"),
    ("icons/icon-maskable-512.png", "512x512", "maskable"),
)
MEDIA_TYPE = "application/manifest+json"
# Checked on every use (a new deploy names new icon URLs); the worker script too, so updates are seen.
_NO_CACHE = {"Cache-Control": "no-cache"}


def manifest(lang: str) -> dict[str, Any]:
    """The manifest in ``lang``: one app (the same ``id``) whichever language the page chose, the other
    language's names under ``translations`` (Chromium's proposal for localized manifests)."""
    versions = pages.client_versions()
    return {
        "id": "/",
        **NAMES[lang],
        "lang": lang,
        "dir": DIRECTIONS[lang],
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "orientation": "any",
        "theme_color": THEME,
        "background_color": BACKGROUND,
        "icons": [
            {
                "src": f"/static/{path}?v={versions.get(path, '')}",
                "sizes": sizes,
                "type": "image/png",
                "purpose": p,
            }
            for path, sizes, p in ICONS
        ],
        # A room link (/r/CODE) opens in the installed app, in its window if it is open.
        "launch_handler": {"client_mode": ["navigate-existing", "auto"]},
        "handle_links": "preferred",
        "capture_links": "existing-client-navigate",
        "translations": {other: NAMES[other] for other in NAMES if other != lang},
    }


@pages.page("/manifest.{lang}.webmanifest", router)
async def web_app_manifest(lang: str) -> Response:
    if lang not in NAMES:
        return JSONResponse({"code": "not_found", "message": "No manifest in that language."}, 404)
    body = json.dumps(manifest(lang), ensure_ascii=False, separators=(",", ":"))
    return Response(body, media_type=MEDIA_TYPE, headers=_NO_CACHE)


# What the worker keeps for offline use: the client's own files (not the API page's: Swagger UI and its glue).
_SHELL_FOLDERS = ("js/", "css/", "icons/")
_SW_TEMPLATE = "const BUILD = 'dev';\nconst SHELL = [];\n"


def service_worker_source() -> str:
    """static/sw.js with this build's id and its files' content-hashed URLs written in: any change to a
    client file changes the script, which is how browsers learn of a new deploy."""
    source = (pages.STATIC_DIR / "sw.js").read_text(encoding="utf-8")
    versions = pages.client_versions()
    shell = [
        "/",
        *(
            f"/static/{p}?v={v}"
            for p, v in versions.items()
            if p.startswith(_SHELL_FOLDERS) and "api-docs" not in p
        ),
    ]
    build = hashlib.sha256(json.dumps([versions, source]).encode()).hexdigest()[:12]
    filled = f"const BUILD = {json.dumps(build)};\nconst SHELL = {json.dumps(shell)};\n"
    return source.replace(_SW_TEMPLATE, filled, 1)


@pages.page("/sw.js", router)
async def service_worker() -> Response:
    """The worker, at the root so that its scope is every page (no Service-Worker-Allowed needed)."""
    if not (pages.STATIC_DIR / "sw.js").is_file():
        return JSONResponse({"code": "not_found", "message": "No service worker."}, 404)
    return Response(service_worker_source(), media_type="text/javascript", headers=_NO_CACHE)
