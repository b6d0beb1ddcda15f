"""Screenshots of a turn's notification as Chromium draws it, in English and in Persian, into this folder:
``notification-en.png`` and ``notification-fa.png``, the popup alone (at two device pixels per CSS pixel, as
on a high-density laptop screen), and ``notification-en-laptop.png`` and ``notification-fa-laptop.png``, the
whole 1280 x 800 screen: the home page open behind it, listing the table in "Your tables".

A documentation tool, not a test (it needs an X server: Xvfb, and a minute). Run from the repository's root:

    python docs/screenshots/make_notification_shots.py                    # both languages, here
    python docs/screenshots/make_notification_shots.py --lang fa --out /tmp/shots

Needs Debian's ``chromium`` and ``chromium-l10n`` (its interface's Persian), ``xvfb``, ``x11-utils``
(xwininfo) and ``imagemagick`` (import, convert), and Playwright for Python (``pip install -e '.[test]'``).
The popup's Persian is drawn in DejaVu Sans (fontconfig's choice on a plain Debian).

What it does, per language:

- the real server (``python -m app`` on a fresh SQLite database); through its API, a table at its own pace
  (24 hours a turn) that Sara (سارا) made and Omid (امید) sat at; its game started and played over sockets
  until it is Omid's turn (``tests.e2e.test_my_tables.play_to_turn``);
- the push the server sends Omid then (app/push/pusher.py): ``app.push.texts.payload`` with the table's code
  and its host's name as the API gives them, in his language (a subscription's: the page's language when he
  tapped the bell);
- Chromium, headful, on an Xvfb screen of its own, drawing its own notification popups
  (``NativeNotifications`` off: else, on a desktop with a notification daemon, Chromium hands them to it over
  D-Bus), its interface in the same language (``LANGUAGE``); Omid's browser: his seat's token and the language
  in its storage, the home page open and under the service worker's control, the permission granted;
- the push delivered to the service worker through the DevTools protocol
  (``ServiceWorker.deliverPushMessage``: what a push service's would be, decrypted); the worker shows it
  (``static/sw.js``), Chromium draws the popup as a window of its own, and the X screen is captured (and, for
  the popup's picture, cut to that window).

The site is opened as ``http://cards.example.org`` (Chromium's host resolver maps the name to the local
server, and treats that origin as secure, as a real site's https one is), so the popup names a site, as it
does for players, instead of ``127.0.0.1`` and a random port.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from app.push import texts  # noqa: E402
from tests.e2e.conftest import CHROMIUM_ARGS as BROWSER_FLAGS  # noqa: E402
from tests.e2e.test_push_tap import paced_turn  # noqa: E402
from tests.e2e.test_push_worker import registration_id  # noqa: E402
from tests.e2e.xscreen import windows, xvfb  # noqa: E402
from tests.server_process import free_port, start_server_process, stop_process  # noqa: E402

SITE = "cards.example.org"
SCREEN = (1280, 800)  # CSS pixels: a laptop's screen
POPUP_SCALE = 2  # device pixels per CSS pixel of the popup's picture
CHROMIUM_ARGS = [
    *BROWSER_FLAGS,  # the browser tests' flags
    # Chromium's own popups, not D-Bus; no offer to translate the Persian page. (Chromium keeps the last
    # --disable-features: this one replaces Playwright's, so it names the two of those needed here.)
    "--disable-features=NativeNotifications,SystemNotifications,Translate,HttpsUpgrades,"
    "HttpsFirstBalancedModeAutoEnable",
    "--window-position=0,0",
]
ACTIVE = """() => Promise.race([
  navigator.serviceWorker.ready,
  new Promise((_, fail) => { setTimeout(() => fail(new Error('no active service worker in 15 s')), 15000); }),
]).then(() => true)"""
SHOWN = """async () => (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({
  title: n.title, body: n.body, tag: n.tag, lang: n.lang, dir: n.dir }))"""


@dataclass(frozen=True)
class Turn:
    """Omid's turn at Sara's paced table, started and played to it: what the server pushes him then."""

    code: str
    guest_token: str
    payload: bytes


def turn(base: str, lang: str) -> Turn:
    """A table at its own pace (24 hours a turn) that the host made and the guest sat at, through the API; its
    game started and played until it is the guest's turn to draw; and the push the server sends the guest
    then, in the guest's language (a subscription's: the page's when the bell was tapped). The same scene as
    the real-tap browser test's (``tests.e2e.test_push_tap.paced_turn``)."""
    return Turn(*paced_turn(base, lang))


def shoot(playwright: Any, port: int, lang: str, at: Turn, scale: float) -> tuple[Path, tuple[int, ...]]:
    """Chromium, on a screen of its own at ``scale`` device pixels per CSS pixel, shows the home page (the
    guest's browser: "Your tables" lists the table) and the push ``at`` sends; the whole screen captured (a
    temporary PNG) and where the popup is on it: (width, height, x, y)."""
    width, height = (round(side * scale) for side in SCREEN)
    site = f"http://{SITE}"
    # Chromium on Linux takes its interface's language from the environment (LANGUAGE counts only when the
    # locale is not C; the locale itself need not be installed), its translations from chromium-l10n.
    locale = {"en": "en_US.UTF-8", "fa": "fa_IR.UTF-8"}[lang]
    with xvfb(width, height) as display:
        env = {**os.environ, "DISPLAY": display, "LANGUAGE": lang, "LANG": locale, "LC_ALL": locale}
        browser = playwright.chromium.launch(
            executable_path=shutil.which("chromium"),
            headless=False,
            env=env,
            args=[
                *CHROMIUM_ARGS,
                f"--window-size={SCREEN[0]},{SCREEN[1]}",
                f"--force-device-scale-factor={scale}",
                f"--host-resolver-rules=MAP {SITE} 127.0.0.1:{port}",
                f"--unsafely-treat-insecure-origin-as-secure={site}",
            ],
        )
        try:
            context = browser.new_context(
                no_viewport=True, service_workers="allow", permissions=["notifications"], locale=lang
            )
            seat = {"tt.lang": lang, f"tt.token.{at.code}": at.guest_token, "tt.learn": "offered"}
            context.add_init_script(
                f"for (const [k, v] of Object.entries({json.dumps(seat)})) localStorage.setItem(k, v);"
            )
            page = context.new_page()
            page.goto(f"{site}/")
            page.evaluate(ACTIVE)
            page.reload()  # now under the worker's control
            page.wait_for_function("() => !!navigator.serviceWorker.controller")
            page.wait_for_selector(f"[data-testid=my-table-{at.code}]")
            cdp = context.new_cdp_session(page)
            registration = registration_id(page, cdp, f"{site}/")
            page.mouse.move(SCREEN[0] / 2, 200)  # away from where the popup shows (a hover keeps it open)
            page.wait_for_timeout(500)
            before = windows(display)
            cdp.send(
                "ServiceWorker.deliverPushMessage",
                {"origin": site, "registrationId": registration, "data": at.payload.decode("utf-8")},
            )
            deadline = time.monotonic() + 15
            while not (popups := {w: g for w, g in windows(display).items() if w not in before}):
                if time.monotonic() > deadline:
                    shown = page.evaluate(SHOWN)
                    raise RuntimeError(f"no notification popup drawn within 15 s (the worker shows {shown})")
                page.wait_for_timeout(100)
            if len(popups) > 1:
                raise RuntimeError(f"more than one new window: {popups}")
            shown = page.evaluate(SHOWN)
            expected = json.loads(at.payload)
            if [(n["title"], n["body"]) for n in shown] != [(expected["title"], expected["body"])]:
                raise RuntimeError(f"the worker shows {shown}, not {expected}")
            page.wait_for_timeout(1500)  # it slides in from the screen's edge: where it stops
            (window,) = popups
            where = windows(display)[window]
            screen = Path(tempfile.mkstemp(suffix=".png")[1])
            subprocess.run(["import", "-display", display, "-window", "root", str(screen)], check=True)
        finally:
            browser.close()
    return screen, where


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent, help="where to write")
    parser.add_argument("--lang", choices=texts.LANGS, action="append", help="only this one (again: more)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    for tool in ("chromium", "xwininfo", "import", "convert"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is missing (see this script's docstring)")
    args.out.mkdir(parents=True, exist_ok=True)
    langs = args.lang or texts.LANGS
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        proc = start_server_process(
            f"sqlite+aiosqlite:///{tmp}/shots.db", port, Path(tmp) / "server.log", LOG_LEVEL="warning"
        )
        try:
            turns = {lang: turn(f"http://127.0.0.1:{port}", lang) for lang in langs}
            with sync_playwright() as playwright:
                for lang in langs:
                    print(f"{lang}: {turns[lang].payload.decode('utf-8')}")
                    # The popup alone, at twice the pixels (a laptop's high-density screen): sharp text.
                    screen, (width, height, x, y) = shoot(playwright, port, lang, turns[lang], POPUP_SCALE)
                    popup = args.out / f"notification-{lang}.png"
                    crop = f"{width}x{height}+{x}+{y}"
                    subprocess.run(["convert", str(screen), "-crop", crop, "+repage", str(popup)], check=True)
                    screen.unlink()
                    # The whole screen, as the other laptop pictures here (1280 x 800, one pixel each).
                    screen, _ = shoot(playwright, port, lang, turns[lang], 1)
                    laptop = args.out / f"notification-{lang}-laptop.png"
                    shutil.move(screen, laptop)
                    print(f"  {popup} ({width}x{height})\n  {laptop}")
        finally:
            stop_process(proc)


if __name__ == "__main__":
    main()
