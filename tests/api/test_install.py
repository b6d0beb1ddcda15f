"""Installing the client as an app, over HTTP: the manifests (media type, both languages, icons that load
at their stated sizes), the service worker script (JavaScript, never kept by the HTTP cache, this build's
files written in) and the pages that link the manifest."""

from __future__ import annotations

import json
import re
import struct

import httpx
import pytest

from app.api import install, pages


async def get(base: str, path: str, **headers: str) -> httpx.Response:
    async with httpx.AsyncClient(base_url=base) as client:
        return await client.get(path, headers=headers)


@pytest.mark.parametrize(
    ("lang", "name", "direction"), [("en", "Three Thirteen", "ltr"), ("fa", "سه و سیزده", "rtl")]
)
async def test_a_manifest_per_language_names_the_same_app(
    server: str, lang: str, name: str, direction: str
) -> None:
    response = await get(server, f"/manifest.{lang}.webmanifest")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/manifest+json"
    assert response.headers["cache-control"] == "no-cache"
    manifest = response.json()
    assert (manifest["name"], manifest["lang"], manifest["dir"]) == (name, lang, direction)
    other = "fa" if lang == "en" else "en"
    assert manifest["translations"][other]["name"] == install.NAMES[other]["name"]
    assert (manifest["id"], manifest["start_url"], manifest["scope"], manifest["display"]) == (
        "/",
        "/",
        "/",
        "standalone",
    )
    assert manifest["theme_color"] == "#0d3b2e"
    assert manifest["handle_links"] == "preferred"
    for icon in manifest["icons"]:
        image = await get(server, icon["src"])
        assert image.status_code == 200 and image.headers["content-type"] == "image/png"
        assert "immutable" in image.headers["cache-control"]  # its URL carries its content's hash
        assert icon["sizes"] == "{}x{}".format(*struct.unpack(">II", image.content[16:24]))
    assert {icon["purpose"] for icon in manifest["icons"]} == {"any", "maskable"}


async def test_a_manifest_in_another_language_is_not_found(server: str) -> None:
    response = await get(server, "/manifest.de.webmanifest")
    assert response.status_code == 404 and response.json()["code"] == "not_found"


async def test_the_pages_link_the_manifest(server: str) -> None:
    for path in ("/", "/r/ABCDE", "/standings", "/games/abcdefghijkm"):
        page = await get(server, path)
        assert '<link rel="manifest" href="/manifest.en.webmanifest">' in page.text, path


async def test_the_worker_script_is_javascript_never_cached_and_names_this_builds_files(server: str) -> None:
    response = await get(server, "/sw.js")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/javascript")
    assert response.headers["cache-control"] == "no-cache"  # browsers see a new deploy's worker at once
    assert "default-src 'self'" in response.headers["content-security-policy"]
    shell = json.loads(re.search(r"^const SHELL = (.*);$", response.text, re.MULTILINE)[1])
    build = re.search(r"^const BUILD = \"([0-9a-f]{12})\";$", response.text, re.MULTILINE)
    assert build is not None
    versions = pages.client_versions()
    assert "/" in shell
    assert f"/static/js/app.js?v={versions['js/app.js']}" in shell
    assert f"/static/css/app.css?v={versions['css/app.css']}" in shell
    # The API page's files are not kept (Swagger UI, static/vendor).
    assert not [url for url in shell if url.startswith("/static/vendor/") or "api-docs" in url]
    # The client's own vendored modules (lit-html) are kept like every other client file.
    assert f"/static/js/vendor/lit-html/lit-html.js?v={versions['js/vendor/lit-html/lit-html.js']}" in shell
    # Every file the home page names (import map, preloads, stylesheet) is one the worker keeps.
    home = await get(server, "/")
    named = set(re.findall(r"/static/(?:js|css)/[\w./-]+\?v=[0-9a-f]+", home.text))
    assert {url for url in named if "api-docs" not in url} <= set(shell)


async def test_a_changed_client_file_changes_the_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    before = install.service_worker_source()
    versions = pages.client_versions()
    monkeypatch.setattr(pages, "client_versions", lambda: {**versions, "js/dom.js": "0123456789ab"})
    after = install.service_worker_source()
    assert after != before
    assert "/static/js/dom.js?v=0123456789ab" in after
    assert re.search(r"const BUILD = (.*);", after)[1] != re.search(r"const BUILD = (.*);", before)[1]


def test_the_boot_script_knows_a_seat_by_the_key_the_client_keeps_it_under() -> None:
    """A room's page asks for the room's info at once only where the join form will read it: a browser with
    no seat there. The boot script (inline, so it cannot import storage.js) reads the token under the key
    storage.js writes it; were they to part, every seated reload would leave a preload unread (issue 37)."""
    storage = (pages.STATIC_DIR / "js" / "storage.js").read_text(encoding="utf-8")
    key = re.search(r"token: \(code\) => `(tt\.token\.)\$\{code\.toUpperCase\(\)\}`", storage)
    assert key is not None
    assert f"localStorage.getItem(`{key[1]}${{code}}`)" in pages.boot_script()
    assert "toUpperCase()" in pages.boot_script()


async def test_pages_and_the_worker_answer_head_as_they_answer_get(sqlite_server: str) -> None:
    """Issue 37, item 6: ``HEAD /sw.js`` answered 405 (as did every page: FastAPI's routes take GET only),
    so an uptime check or a link preview asking for HEAD saw the site as broken."""
    async with httpx.AsyncClient(base_url=sqlite_server) as http:
        code = (await http.post("/api/rooms", json={"name": "Ann"})).json()["code"]
        for path in (
            "/",
            f"/r/{code}",
            f"/r/{code}/history",
            "/standings",
            "/standings/Sara",
            "/sw.js",
            "/manifest.fa.webmanifest",
            "/games/abcdefghijkm",
        ):
            got, head = await http.get(path), await http.head(path)
            assert (head.status_code, got.status_code) == (200, 200), path
            assert head.content == b"" and head.headers["content-type"] == got.headers["content-type"], path
