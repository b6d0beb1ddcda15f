"""The browser client's pages (home, a room, its history and replays, the standings: static/index.html), its
static files with content-hashed URLs and long cache lifetimes, and health."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Awaitable, Callable
from pathlib import Path, PurePosixPath
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.types import Scope

from app.protocol.client_config import client_config_script

from .security_headers import csp_allowing_script

STATIC_DIR = Path(__file__).resolve().parents[2] / "static"
router = APIRouter()


def page(path: str, on: APIRouter = router) -> Callable[[Any], Any]:
    """A route (on ``on``) for a page or a file the browser asks for: GET, and HEAD (uptime checks, link
    previews; FastAPI's routes answer HEAD with 405 unless told)."""
    return on.api_route(path, methods=["GET", "HEAD"], include_in_schema=False)


_PLACEHOLDER = (
    "<!doctype html><title>Three Thirteen</title><p>The client is not installed (static/index.html)."
)
# The views app.js loads with import(): each page preloads its own (with what they import), so a page's
# first screen waits for no module it does not show; the rest load after it is drawn.
PAGE_VIEWS: dict[str, tuple[str, ...]] = {
    "home": ("js/views/home.js",),
    # A room link's join form (a returning player's lobby, socket and table load as soon as app.js runs).
    "room": ("js/views/join.js",),
    "history": ("js/views/history.js", "js/new-game.js"),  # and the watch for a new game at that table
    "replay": ("js/views/replay.js", "js/new-game.js"),
    "standings": ("js/views/standings.js",),
    "not_found": (),
}
# ``import ... from './x.js'``, ``import './x.js'`` and ``export { ... } from './x.js'``, at a line's start or
# after a ``;`` (a minified vendored module: ``import{a as b}from"../x.js";import{...``).
_STATIC_IMPORT = re.compile(
    r"""(?:^|(?<=;))(?:import\s*(?:[^'"();]*?\s*from\s*)?|export\s*[^'"();]*?\s*from\s*)['"](\.{1,2}/[^'"]+)['"]""",
    re.MULTILINE,
)
_ENTRY = "js/app.js"
_IMMUTABLE = "public, max-age=31536000, immutable"


_HASHED = (".js", ".css", ".png")
# The service worker's source (served at /sw.js: app/api/install.py), and the boot script (written into every
# page: _render_index).
_SERVED_ELSEWHERE = {"sw.js", "js/boot.js"}
_BOOT = "js/boot.js"


def _versions() -> dict[str, str]:
    """Every client file (path under static/) and a short hash of its content."""
    return {
        path.relative_to(STATIC_DIR).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()[:12]
        for path in sorted(STATIC_DIR.rglob("*"))
        if path.suffix in _HASHED
        and path.is_file()
        and path.relative_to(STATIC_DIR).as_posix() not in _SERVED_ELSEWHERE
    }


def _eager_modules(versions: dict[str, str], roots: tuple[str, ...] = ()) -> list[str]:
    """The modules the entry point and ``roots`` import statically, directly or not (in load order, entry
    first)."""
    seen: list[str] = []
    queue = [_ENTRY, *roots]
    while queue:
        module = queue.pop(0)
        if module in seen or module not in versions:
            continue
        seen.append(module)
        folder = PurePosixPath(module).parent
        for target in _STATIC_IMPORT.findall((STATIC_DIR / module).read_text(encoding="utf-8")):
            parts: list[str] = []
            for part in (folder / target).parts:
                if part == "..":
                    parts.pop()
                elif part != ".":
                    parts.append(part)
            queue.append("/".join(parts))
    return seen


def boot_script() -> str:
    """static/js/boot.js as the page holds it: without its whole-line comments (every page carries it, on a
    slow link too); "" if there is none."""
    path = STATIC_DIR / _BOOT
    if not path.is_file():
        return ""
    lines = path.read_text(encoding="utf-8").splitlines()
    return "\n".join(line for line in lines if not line.lstrip().startswith("//"))


def _sha256(script: str) -> str:
    """An inline script's hash as a CSP source names it (base64 of its SHA-256)."""
    return base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()


def _render_index(template: str, versions: dict[str, str], page: str = "home") -> str:
    """index.html with an import map to content-hashed URLs (every import, static or dynamic, gets a URL that
    changes when its file does) and a modulepreload for each module of ``page``'s first screen."""
    url = {path: f"/static/{path}?v={digest}" for path, digest in versions.items()}
    import_map = {"imports": {f"/static/{path}": url[path] for path in versions if path.endswith(".js")}}
    mapping = json.dumps(import_map, separators=(",", ":"))
    boot = boot_script()
    _page_cache["csp"] = csp_allowing_script(*(_sha256(script) for script in (mapping, boot) if script))
    # The boot script first: on a room's page it asks for the room's info at once (where it will be read).
    head = [f"<script>{boot}</script>"] if boot else []
    head += [f'<script type="importmap">{mapping}</script>', client_config_script()]
    modules = _eager_modules(versions, PAGE_VIEWS.get(page, ()))
    head += [f'<link rel="modulepreload" href="{url[path]}">' for path in modules]
    head.append(f'<script type="module" src="{url[_ENTRY]}"></script>')
    html = template.replace('<script type="module" src="/static/js/app.js"></script>', "\n  ".join(head))
    if "css/app.css" in url:
        html = html.replace('href="/static/css/app.css"', f'href="{url["css/app.css"]}"')
    return html


_page_cache: dict[str, object] = {}


def _index_html(page: str = "home") -> str | None:
    """The rendered index.html for ``page`` (a key of PAGE_VIEWS). The client's files are indexed (their
    content hashes) once per process, on first use: a build's files do not change under a running server,
    so no request walks static/ (each did, to notice an edit: 1.7-3.1 ms of CPU). Restart after editing."""
    if "versions" not in _page_cache:
        index = STATIC_DIR / "index.html"
        text = index.read_text(encoding="utf-8") if index.is_file() else None
        _page_cache.update(versions=_versions(), html={}, template=text)
    template, rendered = _page_cache["template"], _page_cache["html"]
    if not isinstance(template, str):
        return None
    assert isinstance(rendered, dict)
    if page not in rendered:
        versions = _page_cache["versions"]
        assert isinstance(versions, dict)
        rendered[page] = _render_index(template, versions, page)
    return str(rendered[page])


def client_versions() -> dict[str, str]:
    """The client's files (paths under static/) and their content hashes (their URLs' ``?v=``)."""
    _index_html()  # the index, made on first use
    versions = _page_cache.get("versions")
    return dict(versions) if isinstance(versions, dict) else _versions()


def _index(page: str, status_code: int = 200) -> Response:
    html = _index_html(page)
    # The page itself is always checked again: it names the current version of every file.
    headers = {"Cache-Control": "no-cache", "Content-Security-Policy": str(_page_cache.get("csp", ""))}
    if not headers["Content-Security-Policy"]:
        del headers["Content-Security-Policy"]
    return HTMLResponse(html or _PLACEHOLDER, status_code=status_code, headers=headers)


def without_comments(text: str, kind: str) -> str:
    """A client file as sent under its content hash: its comments blanked, every line kept where it is (an
    error's line number is the source's): in a script, each line that is only a ``//`` comment or part of a
    ``/* */`` comment standing on lines of its own; in a stylesheet, every ``/* */`` comment. About 15% of
    what a room link's first screen downloads (issue 24). A file where that could touch a string (a template
    literal or string across lines, a quote beside a comment in a stylesheet) is sent as it is."""
    if kind == "css":
        return _css_without_comments(text)
    lines = text.split("\n")
    if any(line.count("`") % 2 or line.rstrip().endswith("\\") for line in lines):
        return text
    out: list[str] = []
    in_comment = False
    for line in lines:
        code = line.strip()
        if in_comment or code.startswith("/*"):
            if "*/" in code and not code.endswith("*/"):
                return text  # code after a comment's end on its line: left alone
            in_comment = "*/" not in code[2 if not in_comment else 0 :]
            out.append("")
        elif code.startswith("//"):
            out.append("")
        else:
            out.append(line)
    return text if in_comment else "\n".join(out)


def _css_without_comments(text: str) -> str:
    """A stylesheet's ``/* */`` comments blanked (their line breaks kept); a string's ``/*`` is text."""
    out: list[str] = []
    i, quote = 0, ""
    while i < len(text):
        char = text[i]
        if quote:
            out.append(char)
            if char == "\\":
                out.append(text[i + 1 : i + 2])
                i += 1
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
            out.append(char)
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                return text
            out.append("\n" * text.count("\n", i, end))
            i = end + 1
        else:
            out.append(char)
        i += 1
    return "".join(out)


_STRIPPED: dict[tuple[str, str], bytes] = {}


class ClientFiles(StaticFiles):
    """static/: a URL with the file's current content hash (``?v=``, as index.html writes them) is cached
    for a year (without ETag or Last-Modified: it is never revalidated); any other URL is revalidated on every
    use."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        query = scope.get("query_string", b"").decode("latin-1")
        _index_html()  # the index, made on first use
        versions = _page_cache.get("versions")
        current = isinstance(versions, dict) and f"v={versions.get(path)}" in query.split("&")
        response.headers["Cache-Control"] = _IMMUTABLE if current else "no-cache"
        if current:  # never asked again, so nothing to revalidate with; nor asked for in parts
            for name in ("ETag", "Last-Modified", "Accept-Ranges"):
                if name in response.headers:
                    del response.headers[name]
            kind = PurePosixPath(path).suffix.lstrip(".")
            if kind in ("js", "css") and response.status_code == 200 and "/vendor/" not in f"/{path}":
                assert isinstance(versions, dict)
                key = (path, str(versions[path]))
                if key not in _STRIPPED:
                    source = (STATIC_DIR / path).read_text(encoding="utf-8")
                    _STRIPPED[key] = without_comments(source, kind).encode()
                headers = {k: v for k, v in response.headers.items() if k.lower() != "content-length"}
                return Response(_STRIPPED[key], status_code=200, headers=headers)
        return response


@page("/")
async def home() -> Response:
    return _index("home")


@page("/r/{code}")
async def room_page(code: str) -> Response:
    return _index("room")


@page("/r/{code}/history")
async def room_history_page(code: str) -> Response:
    return _index("history")


@page("/r/{code}/replay/{game_id}")
async def replay_page(code: str, game_id: str) -> Response:
    return _index("replay")


@page("/games/{game_id}")
async def game_replay_page(game_id: str) -> Response:
    """A finished game's replay by its public id alone (the standings name games, never their table)."""
    return _index("replay")


@page("/standings")
async def standings_page() -> Response:
    return _index("standings")


@page("/passkeys")
async def passkeys_page() -> Response:
    """Names kept with passkeys: keep one, sign in, a holder's passkeys (drawn by the standings' module)."""
    return _index("standings")


# ``path``: a name may hold a "/" (sent as %2F, which the router sees decoded).
@page("/standings/{name:path}")
async def player_standings_page(name: str) -> Response:
    return _index("standings")


@router.get("/healthz", tags=["health"])
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


_NOT_PAGES = ("/api/", "/static/", "/ws/")


async def page_for_unknown_path(
    request: Request, call_next: Callable[[Request], Awaitable[Response]]
) -> Response:
    """Middleware: an unknown address opened by a browser gets the client (which says "no page here") with a
    404; the API and every other client keep the JSON 404 `not_found`."""
    response = await call_next(request)
    wants_page = request.method in ("GET", "HEAD") and "text/html" in request.headers.get("accept", "")
    if response.status_code == 404 and wants_page and not request.url.path.startswith(_NOT_PAGES):
        return _index("not_found", status_code=404)
    return response
