"""Fixtures for the browser tests: the real server as a subprocess, and Debian's Chromium via Playwright.

Without Chromium (or Playwright) the tests skip, unless REQUIRE_SERVICES=1, when they fail. Set
E2E_BASE_URL to drive a server that is already running instead of starting one.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "docs" / "screenshots"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def _missing(what: str) -> None:
    if os.environ.get("REQUIRE_SERVICES", "") in ("1", "true", "yes"):
        pytest.fail(f"{what} is required (REQUIRE_SERVICES=1) but missing")
    pytest.skip(f"{what} is not available")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_healthy(base: str, proc: subprocess.Popen[bytes] | None, log: Path, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode}:\n{log.read_text()[-4000:]}")
        try:
            with urllib.request.urlopen(f"{base}/healthz", timeout=1) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"the server did not answer /healthz within {timeout} s:\n{log.read_text()[-4000:]}")


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL of a running server (started here with a fresh SQLite database)."""
    existing = os.environ.get("E2E_BASE_URL")
    if existing:
        yield existing.rstrip("/")
        return
    tmp = tmp_path_factory.mktemp("e2e-server")
    port = _free_port()
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite+aiosqlite:///{tmp / 'e2e.db'}",
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "BOT_DELAY_MS": "0",
        "PUBLIC_BASE_URL": "",
        "MAX_NAME_LENGTH": "32",  # room for the markup-looking name of the XSS test
    }
    log = tmp / "server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "app"], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT
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


@pytest.fixture
def new_page(browser: Any) -> Iterator[Any]:
    """new_page(width, height, lang='en') -> a page in its own context (own localStorage); JS errors fail."""
    contexts: list[Any] = []
    errors: list[str] = []

    def make(width: int = 1024, height: int = 760, lang: str = "en", **kwargs: Any) -> Any:
        context = browser.new_context(viewport={"width": width, "height": height}, locale="en-US", **kwargs)
        # A fresh browser starts in ``lang`` (the client would otherwise follow the browser's language).
        context.add_init_script(
            f"localStorage.getItem('tt.lang') || localStorage.setItem('tt.lang', '{lang}');"
        )
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.set_default_timeout(15_000)
        return page

    yield make
    for context in contexts:
        context.close()
    assert not errors, f"JavaScript errors in the page: {errors}"


def screenshot(page: Any, name: str, **kwargs: Any) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / name), animations="disabled", **kwargs)
