"""A real tap on a turn's notification opens the table (issue 35), in a real Chromium on an X screen of its
own: headless Chromium draws no notification to tap, and its service worker may open a window only after a
real tap on one (``clients.openWindow``: "Not allowed to open a window" otherwise).

Omid's turn at Sara's paced table comes (played to it over sockets); the server's own push for it
(``app.push.texts.payload``) is delivered to his browser's service worker through the DevTools protocol
(``ServiceWorker.deliverPushMessage``, as a push service's would be, decrypted); Chromium draws its popup
(its own, not the desktop's: ``NativeNotifications`` off); the X server clicks it (xdotool, XTest: input as a
mouse's); and the worker's ``notificationclick`` opens a window at the table, where the page takes Omid's
seat. The worker's choices without a tap (a window already at the table focused, other sites' addresses
never opened) are in test_push_worker.py."""

from __future__ import annotations

import json
import os
import shutil
import time
from typing import Any

import httpx
import pytest

from app.push import texts

from .conftest import CHROMIUM_ARGS, _missing
from .test_my_tables import play_to_turn, run
from .test_push_worker import registration_id
from .test_pwa import controlled
from .xscreen import missing_tools, tap, windows, xvfb

pytestmark = pytest.mark.e2e

SCREEN = (1280, 800)
PEOPLE = {"en": ("Sara", "Omid"), "fa": ("سارا", "امید")}  # the host, and the person whose turn it is
# Chromium keeps the last --disable-features: this one names what the tests' flags and Playwright's own need.
FEATURES = (
    "NativeNotifications,SystemNotifications,Translate,HttpsUpgrades,HttpsFirstBalancedModeAutoEnable,"
    "WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup"
)
FLAGS = [
    *(flag for flag in CHROMIUM_ARGS if not flag.startswith("--disable-features=")),
    f"--disable-features={FEATURES}",
    "--window-position=0,0",
    f"--window-size={SCREEN[0]},{SCREEN[1]}",
]


def paced_turn(server: str, lang: str) -> tuple[str, str, bytes]:
    """Sara's table at 24 hours a turn, Omid seated, played over sockets until it is his turn; its code, his
    token, and what the server pushes him for it: ``app.push.texts.payload`` with the host's name as the API
    gives it, in his language. (The notification pictures' script sets its scene with this too.)"""
    host, guest = PEOPLE[lang]
    made = httpx.post(f"{server}/api/rooms", json={"name": host, "seats": 2, "options": {"pace": 24}})
    made.raise_for_status()
    code, host_token = made.json()["code"], made.json()["token"]
    joined = httpx.post(f"{server}/api/rooms/{code}/join", json={"name": guest})
    joined.raise_for_status()
    run(play_to_turn(server, code, [host_token, joined.json()["token"]], seat=joined.json()["seat"]))
    room = httpx.get(f"{server}/api/rooms/{code}").json()
    if room["options"]["pace"] != 24 or room["game"]["status"] != "playing":
        raise RuntimeError(f"not a paced game under way: {room}")
    host_name = room["seats"][room["host_seat"]]["name"]
    payload = texts.payload(code=code, kind="turn", host_name=host_name, lang=lang)
    return code, joined.json()["token"], payload


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_a_real_tap_on_the_turn_notification_opens_the_table_at_omids_seat(
    browser: Any, server: str, lang: str
) -> None:
    if missing := missing_tools():
        _missing(f"the X tools for a real tap ({', '.join(missing)}: apt-get install xvfb x11-utils xdotool)")
    code, token, payload = paced_turn(server, lang)
    assert json.loads(payload)["url"] == f"/r/{code}"
    with xvfb(*SCREEN) as display:
        headful = browser.browser_type.launch(
            executable_path=shutil.which("chromium"),
            headless=False,
            env={**os.environ, "DISPLAY": display},
            args=FLAGS,
        )
        try:
            context = headful.new_context(
                no_viewport=True, service_workers="allow", permissions=["notifications"], locale=lang
            )
            stored = {"tt.lang": lang, f"tt.token.{code}": token, "tt.learn": "offered"}
            context.add_init_script(
                f"for (const [k, v] of Object.entries({json.dumps(stored)})) localStorage.setItem(k, v);"
            )
            home = context.new_page()
            home.goto(f"{server}/")
            controlled(home)
            home.wait_for_selector(f"[data-testid=my-table-{code}]")  # "Your tables": his turn there
            cdp = context.new_cdp_session(home)
            registration = registration_id(home, cdp, f"{server}/")
            home.mouse.move(SCREEN[0] / 2, 200)  # away from where the popup slides in (a hover holds it)
            before = windows(display)
            cdp.send(
                "ServiceWorker.deliverPushMessage",
                {"origin": server, "registrationId": registration, "data": payload.decode("utf-8")},
            )
            popup = drawn(home, display, before)
            home.wait_for_timeout(1500)  # it slides in from the screen's edge: tap it where it stops
            width, height, x, y = windows(display)[popup]
            assert len(context.pages) == 1
            with context.expect_page(timeout=15_000) as opened:
                tap(display, x + width // 3, y + height // 2)
            table = opened.value
            table.wait_for_url(f"{server}/r/{code}", timeout=15_000)
            # The page takes his seat at the table (his token in this browser), on his turn to draw.
            table.wait_for_selector(
                "[data-testid=table][data-my-turn='1'][data-phase='draw']", timeout=15_000
            )
            assert table.evaluate("document.documentElement.lang") == lang
            assert home.evaluate(SHOWN) == [], "the tapped notification is closed"
        finally:
            headful.close()


SHOWN = """async () => (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => n.title)"""


def drawn(page: Any, display: str, before: dict[str, tuple[int, int, int, int]]) -> str:
    """The popup's window, once Chromium draws the worker's notification (one new window on the screen)."""
    deadline = time.monotonic() + 15
    while not (new := [w for w in windows(display) if w not in before]):
        assert time.monotonic() < deadline, f"no popup drawn in 15 s; the worker shows {page.evaluate(SHOWN)}"
        page.wait_for_timeout(100)
    assert len(new) == 1, f"more than one new window: {new}"
    return new[0]
