"""Fixtures for the browser tests: the real server as a subprocess, and Debian's Chromium via Playwright.

Without Chromium (or Playwright) the tests skip, unless REQUIRE_SERVICES=1, when they fail. Set
E2E_BASE_URL to drive a server that is already running instead of starting one. Screenshots go to a temporary
folder, or into the tracked docs/screenshots/ with UPDATE_SCREENSHOTS=1.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.server_process import free_port, listens

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
DOC_SCREENSHOTS = ROOT / "docs" / "screenshots"
_screenshots: list[Path] = []  # where screenshot() writes: set once per session by the fixture below
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    # Chromium 156 opens two WebUI renderers for the address bar's popup with every window (context), which no
    # headless test ever shows: a third of the browser's CPU in the browser suite (test_table.py: 53 -> 28 s).
    "--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup",
]


def _missing(what: str) -> None:
    if _truthy("REQUIRE_SERVICES"):
        pytest.fail(f"{what} is required (REQUIRE_SERVICES=1) but missing")
    pytest.skip(f"{what} is not available")


def _wait_healthy(base: str, proc: subprocess.Popen[bytes] | None, log: Path, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode}:\n{log.read_text()[-4000:]}")
        try:
            with urllib.request.urlopen(f"{base}/healthz", timeout=1) as response:
                port = int(base.rsplit(":", 1)[1])
                if response.status == 200 and (proc is None or listens(proc.pid, port)):  # not another's
                    return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"the server did not answer /healthz within {timeout} s:\n{log.read_text()[-4000:]}")


def _truthy(name: str) -> bool:
    return os.environ.get(name, "") in ("1", "true", "yes")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Each browser test module runs on one xdist worker (``--dist loadgroup``): its Chromium and its module's
    own fixtures (a server of its own, games seeded or finished beforehand) are made once, not once on each
    worker that got a share of its tests. (Collected before xdist's own hook reads the groups.)"""
    for item in items:
        if item.path.parent != HERE:
            continue
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(f"e2e/{item.path.stem}"))
        # Whatever drives Chromium is an ``e2e`` test, marked or not (the quick subset leaves them out).
        if "browser" in getattr(item, "fixturenames", ()) and item.get_closest_marker("e2e") is None:
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session", autouse=True)
def screenshot_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """docs/screenshots/ with UPDATE_SCREENSHOTS=1, else a temporary folder (the tree stays clean)."""
    folder = DOC_SCREENSHOTS if _truthy("UPDATE_SCREENSHOTS") else tmp_path_factory.mktemp("screenshots")
    _screenshots[:] = [folder]
    return folder


@contextlib.contextmanager
def serving(tmp: Path, cwd: Path = ROOT, port: int | None = None, **settings: str) -> Iterator[str]:
    """``python -m app`` (run in ``cwd``) on a SQLite database in ``tmp`` (fresh, unless a server ran there
    before) with ``settings`` (environment variables), on ``port`` or a free one: its base URL while it
    runs."""
    port = port or free_port()
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite+aiosqlite:///{tmp / 'e2e.db'}",
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "BOT_DELAY_MS": "0",
        "PUBLIC_BASE_URL": "",
        **settings,
    }
    log = tmp / "server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "app"], cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT
        )
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(base, proc, log)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL of a running server (started here with a fresh SQLite database)."""
    existing = os.environ.get("E2E_BASE_URL")
    if existing:
        yield existing.rstrip("/")
        return
    # room for the markup-looking name of the XSS test
    # Every table of the worker's browser tests comes from 127.0.0.1: the hourly budget of tables per address
    # (60) is not what they test (tests/security does), and a worker that runs most of the browser modules
    # (--dist loadgroup) made more than 60 and got 429s.
    # Nor is the per-socket message rate (20 a second): the games played from Python before a test looks
    # (``seeding``) move as fast as the server answers.
    with serving(
        tmp_path_factory.mktemp("e2e-server"),
        MAX_NAME_LENGTH="32",
        MAX_ROOMS_PER_ADDRESS="100000",
        MAX_MESSAGES_PER_SECOND="1000",
    ) as base:
        yield base


@pytest.fixture(scope="session")
def finished_game(server: str) -> tuple[str, int]:
    """Sara's finished game against a bot on the worker's server (its code and game id), played once for
    every module that only looks at it (the history, the replay, accessibility)."""
    from .seeding import finish_with_a_bot

    return finish_with_a_bot(server, "Sara")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Chromium, per test module: Playwright's sync API runs an event loop in this thread while it is
    open, so it must be closed before the asyncio tests of other folders run in the same session."""
    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if not executable:
        _missing("Chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("Playwright for Python")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class PageJournal:
    """What each page of a test asked the network for and printed, with times: shown when the test fails, so
    a page that waited in vain says on what (a request never answered, one that failed, a console error)."""

    def __init__(self) -> None:
        self.start = time.monotonic()
        self.lines: list[str] = []
        self.pages: list[Any] = []

    def shown(self) -> list[str]:
        """Each open page's address and visible text, now."""
        seen = []
        for number, page in enumerate(self.pages, 1):
            try:
                text = page.evaluate("document.body.innerText").strip().replace("\n", " | ")
                seen.append(f"page {number} at {page.url} shows: {text[:400]}")
            except Exception as exc:  # a closed page
                seen.append(f"page {number}: {exc.__class__.__name__}")
        return seen

    def note(self, page_no: int, what: str) -> None:
        self.lines.append(f"{time.monotonic() - self.start:7.3f}s page {page_no}: {what}")

    def watch(self, page: Any, page_no: int) -> None:
        self.pages.append(page)

        def timing(request: Any) -> str:
            try:
                return f"{request.timing.get('responseEnd', -1):.0f} ms"
            except Exception:  # timing is best effort
                return "?"

        page.on("request", lambda r: self.note(page_no, f"-> {r.method} {r.url}"))
        page.on("requestfinished", lambda r: self.note(page_no, f"<- {r.method} {r.url} ({timing(r)})"))
        page.on("requestfailed", lambda r: self.note(page_no, f"!! {r.method} {r.url}: {r.failure}"))
        page.on("websocket", lambda ws: self.note(page_no, f"ws {ws.url}"))
        page.on("console", lambda m: self.note(page_no, f"console.{m.type}: {m.text}"))
        page.on("framenavigated", lambda f: f.parent_frame or self.note(page_no, f"navigated {f.url}"))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    journal = getattr(item, "page_journal", None)
    if journal is not None and report.failed and journal.lines:
        lines = journal.lines[-150:] + journal.shown()
        report.sections.append(("pages' network and console", "\n".join(lines)))
    return report


@pytest.fixture
def new_page(browser: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    """new_page(width, height, lang='en', **context options) -> a page in its own context (own localStorage);
    JS errors fail."""
    contexts: list[Any] = []
    errors: list[str] = []
    journal = PageJournal()
    request.node.page_journal = journal

    def make(width: int = 1024, height: int = 760, lang: str = "en", **kwargs: Any) -> Any:
        # The service worker (static/sw.js) only where a test asks for it (tests/e2e/test_pwa.py): elsewhere
        # every request goes to the server as the test routes it (page.route misses what a worker answers).
        kwargs.setdefault("service_workers", "block")
        context = browser.new_context(viewport={"width": width, "height": height}, locale="en-US", **kwargs)
        # A fresh browser starts in ``lang`` (the client would otherwise follow the browser's language).
        context.add_init_script(
            f"localStorage.getItem('tt.lang') || localStorage.setItem('tt.lang', '{lang}');"
        )
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        journal.watch(page, len(contexts))
        page.set_default_timeout(15_000)
        return page

    yield make
    for context in contexts:
        context.close()
    assert not errors, f"JavaScript errors in the page: {errors}"


def open_lobby(
    page: Any, server: str, name: str = "Sara", *, seats: int | None = None, bot: bool = False
) -> str:
    """From the home page, open a table as ``name`` (with ``seats`` seats, and one bot if ``bot``); wait
    for its lobby and return the table's code."""
    page.goto(f"{server}/")
    page.fill("[data-testid=create-name]", name)
    if seats is not None:
        page.select_option("[data-testid=create-seats]", str(seats))
    if bot:
        page.click("[data-testid=add-bot]")
    page.click("[data-testid=create]")
    page.wait_for_selector("[data-testid=lobby]")
    return str(page.url.rstrip("/").rsplit("/", 1)[-1])


def screenshot(page: Any, name: str, **kwargs: Any) -> Path:
    """Take a screenshot (it must render) into the session's screenshot folder; returns its path."""
    folder = _screenshots[0]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    page.screenshot(path=str(path), animations="disabled", **kwargs)
    assert path.stat().st_size > 0
    return path
