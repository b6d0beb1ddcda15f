"""Security headers on every response (pages, API, static files, errors), and an API page (/docs) that
loads only same-origin assets and holds no inline script or style."""

from __future__ import annotations

import base64
import hashlib
import re
from html.parser import HTMLParser

import httpx

from app.api.pages import boot_script

from .conftest import LiveServer

EXPECTED = {
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
}
# The client's scripts and stylesheet: never a document nor a worker, so only the headers that act on the file
# itself (CSP, X-Frame-Options and COOP apply to documents and workers; /sw.js is a worker and keeps them).
SUBRESOURCES = {"/static/js/app.js", "/static/css/app.css"}
SUBRESOURCE_EXPECTED = {"x-content-type-options": "nosniff", "referrer-policy": "no-referrer"}
DOCUMENT_ONLY = ("content-security-policy", "x-frame-options", "cross-origin-opener-policy")
BOOT = boot_script()  # static/js/boot.js without its comments
REQUESTS = [
    ("GET", "/", None),
    ("GET", "/r/ABCDE", None),
    ("GET", "/r/ABCDE/history", None),
    ("GET", "/r/ABCDE/replay/1", None),
    ("GET", "/games/abcdefghijkm", None),
    ("GET", "/standings", None),
    ("GET", "/standings/Sara%20K", None),
    ("GET", "/docs", None),
    ("GET", "/openapi.json", None),
    ("GET", "/healthz", None),
    ("GET", "/qr.svg?link=http%3A%2F%2Fh.example%2Fr%2FABCDEFGH", None),
    ("GET", "/readyz", None),
    ("GET", "/metrics", None),
    ("GET", "/static/js/app.js", None),
    ("GET", "/static/css/app.css", None),
    ("GET", "/sw.js", None),
    ("GET", "/manifest.en.webmanifest", None),
    ("GET", "/static/no-such-file.js", None),  # 404 from the static files
    ("GET", "/no/such/page", None),  # 404 from the router
    ("GET", "/api/rooms/ZZZZZ", None),  # room_not_found
    ("POST", "/api/rooms", {"name": ""}),  # 422
    ("POST", "/api/rooms", {"name": "x" * 20000}),  # 413
    ("POST", "/api/rooms", {"name": "Ann", "seats": 2}),  # 201
]


def csp_directives(value: str) -> dict[str, list[str]]:
    parts = (d.split() for d in value.split(";") if d.strip())
    return {p[0]: p[1:] for p in parts}


async def test_every_response_carries_the_security_headers(live: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=live.base) as http:
        for method, path, body in REQUESTS:
            response = await http.request(method, path, json=body)
            if path in SUBRESOURCES:
                for name, value in SUBRESOURCE_EXPECTED.items():
                    assert response.headers.get(name) == value, (path, name)
                extra = [name for name in DOCUMENT_ONLY if name in response.headers]
                assert not extra, (path, extra)
                continue
            for name, value in EXPECTED.items():
                assert response.headers.get(name) == value, (method, path, response.status_code, name)
            csp = csp_directives(response.headers.get("content-security-policy", ""))
            assert csp.get("frame-ancestors") == ["'none'"], (path, csp)
            assert csp.get("default-src") == ["'self'"], (path, csp)
            # No inline script and no other origin; the client's page also names its import map and its boot
            # script by hash.
            script_src = csp.get("script-src", [])
            assert script_src[:1] == ["'self'"] and all(s.startswith("'sha256-") for s in script_src[1:]), (
                path
            )
            assert len(script_src) <= 3, (path, csp)
            assert csp.get("style-src") == ["'self'"], (path, csp)
            assert csp.get("object-src") == ["'none'"], (path, csp)


class Assets(HTMLParser):
    """Every URL a page loads, and whatever inline script or style it holds."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.inline: list[str] = []
        self.import_maps: list[str] = []  # inline, but data (module URLs), allowed by the page's CSP hash
        self.boot: list[str] = []  # the one inline script allowed (by hash): static/js/boot.js
        self._in_script = False
        self._in_import_map = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if "style" in values:
            self.inline.append(f"style attribute on <{tag}>")
        if any(name.startswith("on") for name in values):
            self.inline.append(f"event handler attribute on <{tag}>")
        if tag == "style":
            self.inline.append("<style> element")
        if tag == "script":
            self._in_import_map = values.get("type") == "importmap"
            # A JSON data block (the client's config) is data the browser never runs: not inline code.
            data_block = values.get("type") == "application/json"
            self._in_script = "src" not in values and not self._in_import_map and not data_block
        for name in ("src", "href"):
            url = values.get(name)
            if url and not (tag == "a" and name == "href") and not url.startswith("data:"):
                self.urls.append(url)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = self._in_import_map = False

    def handle_data(self, data: str) -> None:
        if self._in_import_map:
            self.import_maps.append(data)
        if self._in_script and BOOT and data == BOOT:
            self.boot.append(data)
        elif self._in_script and data.strip():
            self.inline.append(f"inline script: {data.strip()[:60]!r}")


def same_origin(url: str) -> bool:
    return url.startswith("/") and not url.startswith("//")


async def test_pages_load_only_same_origin_assets_and_no_inline_code(live: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=live.base) as http:
        for page in ("/", "/docs"):
            response = await http.get(page)
            assert response.status_code == 200
            assets = Assets()
            assets.feed(response.text)
            assert assets.urls, f"{page} loads nothing: this check would prove nothing"
            assert not assets.inline, (page, assets.inline)
            policy = csp_directives(response.headers["content-security-policy"])
            allowed = {
                f"'sha256-{base64.b64encode(hashlib.sha256(m.encode()).digest()).decode()}'"
                for m in [*assets.import_maps, *assets.boot]
            }
            assert len(assets.boot) == (page == "/"), (page, "the client's page holds its boot script")
            assert set(policy["script-src"][1:]) == allowed, (page, "its import map and boot, by hash")
            foreign = [url for url in assets.urls if not same_origin(url)]
            assert not foreign, f"{page} loads from another origin: {foreign}"
            for url in assets.urls:
                asset = await http.get(url)
                assert asset.status_code == 200, (page, url, asset.status_code)


async def test_the_api_page_is_swagger_ui_on_this_servers_schema(live: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=live.base) as http:
        page = (await http.get("/docs")).text
        bundle = re.search(r'src="(/static/vendor/swagger-ui-[\d.]+/swagger-ui-bundle\.js)"', page)
        assert bundle is not None, "the page does not load the vendored Swagger UI"
        script = await http.get(bundle.group(1))
        assert "SwaggerUIBundle" in script.text
        assert 'data-openapi-url="/openapi.json"' in page
        assert (await http.get("/openapi.json")).json()["info"]["title"] == "Three Thirteen"
        assert (await http.get("/redoc")).status_code == 404  # it loaded its script from a CDN
