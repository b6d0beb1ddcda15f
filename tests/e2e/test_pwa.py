"""The client installs as an app: its manifest (both languages, icons), its service worker (controls the
page, keeps the shell for offline, follows a new deploy), and what it shows offline, in a real Chromium."""

from __future__ import annotations

import contextlib
import shutil
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.server_process import free_port

from .conftest import ROOT, screenshot, serving

pytestmark = pytest.mark.e2e

PHONE = (390, 844)
OFFLINE_EN = "You are offline"
OFFLINE_FA = "شما آفلاین هستید"


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


# ``ready`` resolves once a worker is active; never, without one: fail after 15 s instead.
ACTIVE = """() => Promise.race([
  navigator.serviceWorker.ready,
  new Promise((_, fail) => { setTimeout(() => fail(new Error('no active service worker in 15 s')), 15000); }),
]).then(() => true)"""


def controlled(page: Any) -> None:
    """Wait for the worker to be installed and active, then reload: the page is now under its control."""
    page.evaluate(ACTIVE)
    page.reload()
    page.wait_for_function("() => !!navigator.serviceWorker.controller")


def test_the_manifest_is_linked_in_the_pages_language_and_valid(new_page: Any, server: str) -> None:
    page = new_page(service_workers="allow")
    page.goto(f"{server}/")
    page.wait_for_selector("[data-testid=create-name]")
    cdp = page.context.new_cdp_session(page)
    names = {}
    for lang in ("en", "fa"):
        if lang == "fa":
            page.click("[data-testid=lang]")
            page.wait_for_function("() => document.documentElement.lang === 'fa'")
        href = page.get_attribute("link[rel=manifest]", "href")
        assert href == f"/manifest.{lang}.webmanifest"
        response = page.request.get(f"{server}{href}")
        assert response.status == 200
        assert response.headers["content-type"] == "application/manifest+json"
        manifest = response.json()
        names[lang] = manifest["name"]
        assert manifest["lang"] == lang and manifest["dir"] == ("rtl" if lang == "fa" else "ltr")
        assert (manifest["id"], manifest["start_url"], manifest["scope"]) == ("/", "/", "/")
        assert manifest["display"] == "standalone" and manifest["theme_color"] == "#0d3b2e"
        assert manifest["launch_handler"]["client_mode"][0] == "navigate-existing"
        purposes = set()
        for icon in manifest["icons"]:
            image = page.request.get(f"{server}{icon['src']}")
            assert image.status == 200 and image.headers["content-type"] == "image/png"
            width, height = png_size(image.body())
            assert icon["sizes"] == f"{width}x{height}"
            purposes.add((icon["purpose"], width))
        assert {("any", 192), ("any", 512), ("maskable", 512)} <= purposes
        # Chromium reads the linked manifest as it would to install the app: no errors.
        parsed = cdp.send("Page.getAppManifest")
        assert parsed["url"].endswith(href)
        assert parsed["errors"] == [], parsed["errors"]
    assert names == {"en": "Three Thirteen", "fa": "سه و سیزده"}


def test_the_worker_controls_the_page_after_a_reload(new_page: Any, server: str) -> None:
    page = new_page(service_workers="allow")
    page.goto(f"{server}/")
    assert page.evaluate("() => navigator.serviceWorker.controller") is None
    controlled(page)
    scope = page.evaluate("async () => (await navigator.serviceWorker.getRegistration()).scope")
    assert scope == f"{server}/"
    # The shell is kept: this build's entry module is in the worker's cache.
    entry = page.get_attribute("script[type=module]", "src")
    assert page.evaluate("async (url) => !!(await caches.match(url))", entry)


def new_room(server: str) -> str:
    created = httpx.post(f"{server}/api/rooms", json={"name": "Sara", "seats": 4}).json()
    return str(created["code"])


def test_the_worker_asks_for_a_rooms_info_as_its_page_is_asked_for(new_page: Any, server: str) -> None:
    """A room's page opened under the worker: the worker asks for the room's info itself as it answers the
    page (a second visit then waits no round trip of the page's own: issue 24's 0.5 s), and the page's request
    for it gets that answer; the room's info is asked for once, and never kept."""
    page = new_page(*PHONE, service_workers="allow")
    page.goto(f"{server}/")
    page.wait_for_selector("[data-testid=create-name]")
    controlled(page)
    code = new_room(server)
    asked: list[tuple[str, bool]] = []  # requests of the API: (url, made by the worker itself)
    page.context.on(
        "request",
        lambda r: asked.append((r.url, r.service_worker is not None)) if "/api/" in r.url else None,
    )
    answers: list[bool] = []  # the page's: answered by the worker
    page.on("response", lambda r: answers.append(r.from_service_worker) if "/api/" in r.url else None)
    page.goto(f"{server}/r/{code}")
    page.wait_for_selector("[data-testid=join-name]")
    assert page.locator("[data-testid=seats], .seats .name").first.inner_text() == "Sara"
    page.wait_for_load_state("networkidle")
    assert [url for url, by_worker in asked if by_worker] == [f"{server}/api/rooms/{code}"], asked
    assert answers == [True], "the page's request (its preload, which app.js's fetch reuses): the worker's"
    assert not page.evaluate("async (url) => !!(await caches.match(url))", f"{server}/api/rooms/{code}"), (
        "the room's info is never kept"
    )
    # Asked for once only: the page's next request for it (joining, later) goes to the network.
    page.fill("[data-testid=join-name]", "Omid")
    page.click("[data-testid=join-seat]")
    page.wait_for_selector("[data-testid=lobby]")


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_offline_a_visited_page_shows_the_shell_and_a_page_needing_the_api_says_offline(
    new_page: Any, server: str, lang: str
) -> None:
    page = new_page(*PHONE, lang, service_workers="allow")
    code = new_room(server)
    page.goto(f"{server}/r/{code}")
    page.wait_for_selector("[data-testid=join-name]")
    controlled(page)
    page.wait_for_selector("[data-testid=join-name]")
    offline = OFFLINE_FA if lang == "fa" else OFFLINE_EN

    page.context.set_offline(True)
    page.reload()  # the room's page: its kept copy; the room's info cannot come
    assert page.locator(".brand").is_visible()  # the app, not Chromium's error page
    page.wait_for_selector(f"#main .error:has-text('{offline}')")
    screenshot(page, f"pwa-offline-room-{lang}-phone.png")

    page.goto(f"{server}/standings")  # never visited: the home page's shell, reading this address
    page.wait_for_selector(f"#main .error:has-text('{offline}')")
    assert page.locator("html").get_attribute("dir") == ("rtl" if lang == "fa" else "ltr")
    screenshot(page, f"pwa-offline-standings-{lang}-phone.png")

    page.context.set_offline(False)
    page.reload()  # back online: the page itself, from the network
    page.wait_for_selector("[data-testid=standings]")


def test_offline_with_nothing_kept_a_page_says_offline_in_both_languages(new_page: Any, server: str) -> None:
    page = new_page(*PHONE, service_workers="allow")
    page.goto(f"{server}/")
    controlled(page)
    page.evaluate("async () => { for (const name of await caches.keys()) await caches.delete(name); }")
    page.context.set_offline(True)
    response = page.goto(f"{server}/standings")
    assert response.status == 503
    notice = page.locator("[data-testid=offline]")
    assert OFFLINE_EN in notice.inner_text() and OFFLINE_FA in notice.inner_text()
    assert page.locator("[data-testid=offline] [lang=fa]").get_attribute("dir") == "rtl"
    screenshot(page, "pwa-offline-nothing-kept-phone.png")


# Wait (15 s at most) until the worker is settled (none installing or waiting) with ``count`` caches, of
# which none is ``gone``; the caches' names.
SETTLED = """async ([count, gone]) => {
  const settled = async () => {
    const registration = await navigator.serviceWorker.getRegistration();
    const keys = await caches.keys();
    const idle = !registration.installing && !registration.waiting;
    return idle && keys.length === count && !keys.includes(gone) ? keys : null;
  };
  for (const end = Date.now() + 15000; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
    const keys = await settled();
    if (keys) return keys;
  }
  throw new Error(`the caches are still ${await caches.keys()}`);
}"""
DOM = "link[rel=modulepreload][href^='/static/js/html.js']"  # a file every page preloads


def kept(page: Any, url: str) -> bool:
    return bool(page.evaluate("async (url) => !!(await caches.match(url))", url))


class Deployment:
    """A server running from a copy of the project's code and client, so that a test can deploy a change to
    a client file: change a file under ``static``, then ``deploy()`` restarts the server on the same address
    and database (a server indexes the client's files once, as it starts)."""

    def __init__(self, tmp: Path) -> None:
        self.tmp, self.tree = tmp, tmp / "tree"
        self.tree.mkdir()
        for folder in ("app", "static"):
            skip = shutil.ignore_patterns("__pycache__", "swagger-ui-*")  # the API page's (lit-html)
            shutil.copytree(ROOT / folder, self.tree / folder, ignore=skip)
        for name in ("migrations", "docs", "alembic.ini"):
            (self.tree / name).symlink_to(ROOT / name)
        self.static = self.tree / "static"
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self._running = contextlib.ExitStack()

    def deploy(self) -> None:
        self._running.close()
        self._running.enter_context(serving(self.tmp, self.tree, self.port, PYTHONPATH=str(self.tree)))

    def stop(self) -> None:
        self._running.close()


@pytest.fixture
def deployable(tmp_path: Path) -> Iterator[Deployment]:
    deployment = Deployment(tmp_path)
    deployment.deploy()
    try:
        yield deployment
    finally:
        deployment.stop()


def test_a_new_deploy_is_picked_up_and_older_caches_dropped(new_page: Any, deployable: Deployment) -> None:
    base, static = deployable.base, deployable.static
    page = new_page(service_workers="allow")
    page.goto(f"{base}/")
    controlled(page)
    (first,) = page.evaluate(SETTLED, [1, ""])
    doms = [page.get_attribute(DOM, "href")]

    for deploy in (1, 2):  # each deploy: one client file changes
        with (static / "js" / "html.js").open("a") as out:
            out.write(f"\n// deploy {deploy}\n")
        deployable.deploy()
        page.reload()  # a navigation: the browser checks the worker's script, finds it changed
        caches = page.evaluate(SETTLED, [2, first if deploy == 2 else ""])
        page.reload()  # the page of the new build (from the network, or the new worker's cache)
        doms.append(page.get_attribute(DOM, "href"))
        assert doms[-1] != doms[-2]
        assert kept(page, doms[-1])
        # The build before stays (a page opened from it finds its files); the one before that is gone.
        assert kept(page, doms[-2])
        if deploy == 1:
            assert first in caches
        else:
            assert first not in caches and not kept(page, doms[0])
    # Offline, the page kept is of the latest build: everything it names is in the cache.
    page.context.set_offline(True)
    page.reload()
    page.wait_for_selector("[data-testid=create-name]")
    assert page.get_attribute(DOM, "href") == doms[-1]


# The page paths the worker keeps (not the home page, not the client's files), in the order they were put.
KEPT_PAGES = """async () => {
  const names = (await caches.keys()).filter((name) => name.startsWith('tt-'));
  const cache = await caches.open(names[names.length - 1]);
  return (await cache.keys()).map((r) => new URL(r.url).pathname)
    .filter((path) => path !== '/' && !path.startsWith('/static/'));
}"""


def test_the_worker_keeps_only_the_last_pages_visited(new_page: Any, server: str) -> None:
    """Each distinct page visited was kept for offline and never dropped within a build (issue 39): the
    worker now keeps the 12 visited last, and the home page (every page's shell offline)."""
    page = new_page(*PHONE, service_workers="allow")
    page.goto(f"{server}/")
    controlled(page)
    visited = [f"/standings/player{n:02d}" for n in range(1, 16)]
    for path in visited:
        page.goto(f"{server}{path}")
        page.wait_for_selector("#main h1, #main .error")
        # Each copy is kept after the page's answer; wait for it so the order is the visits' order.
        page.wait_for_function(f"async () => ({KEPT_PAGES})().then((kept) => kept.includes('{path}'))")
    assert page.evaluate(KEPT_PAGES) == visited[-12:]
    assert page.evaluate("async () => !!(await caches.match('/'))"), "the home page stays"
    page.goto(f"{server}{visited[0]}")  # a dropped page comes from the network again, and is kept again
    page.wait_for_function(
        f"async () => ({KEPT_PAGES})().then((kept) => kept.length === 12 && kept.at(-1) === '{visited[0]}')"
    )
    assert page.evaluate(KEPT_PAGES) == [*visited[-11:], visited[0]]
