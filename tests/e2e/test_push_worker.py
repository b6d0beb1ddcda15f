"""The service worker shows a turn notification from a push, in a real Chromium: the push is delivered through
the DevTools protocol (``ServiceWorker.deliverPushMessage``, as a push service's would be, decrypted), and
the worker shows the server's JSON (title, body, tag, icon, language and direction, the table to open).
What a push service sends, encrypted and signed, is tested in tests/push against a real push service.

A tap on a notification cannot be made here: headless Chromium shows none to click, and only a real tap lets
the worker open or focus a window (``clients.openWindow`` says "Not allowed to open a window" otherwise). So
the tap's handler (``openTable``, what ``notificationclick`` runs) is called in the worker with the shown
notifications' own data, with ``openWindow`` and ``focus`` recording what the tap would open, for each case
(a window already at the table, none, another site's address). A real tap, on Chromium's own popup on an X
screen, is test_push_tap.py."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest

from .test_pwa import controlled

pytestmark = pytest.mark.e2e

NOTIFICATIONS = """async () => (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({
  title: n.title, body: n.body, tag: n.tag, icon: n.icon, lang: n.lang, dir: n.dir, data: n.data }))"""


def registration_id(page: Any, cdp: Any, scope: str) -> str:
    found: list[dict[str, Any]] = []
    cdp.on("ServiceWorker.workerRegistrationUpdated", lambda event: found.extend(event["registrations"]))
    cdp.send("ServiceWorker.enable")
    deadline = time.monotonic() + 10
    while not any(r["scopeURL"] == scope for r in found):
        assert time.monotonic() < deadline, f"no registration for {scope}: {found}"
        page.wait_for_timeout(50)
    return str(next(r["registrationId"] for r in found if r["scopeURL"] == scope))


def shown_when(page: Any, done: Callable[[list[dict[str, Any]]], bool]) -> list[dict[str, Any]]:
    """The notifications shown, once ``done`` says they are all there (AssertionError after 10 s)."""
    deadline = time.monotonic() + 10
    while not done(shown := page.evaluate(NOTIFICATIONS)):
        assert time.monotonic() < deadline, shown
        page.wait_for_timeout(50)
    return list(shown)


def test_a_push_shows_the_turn_in_both_languages(new_page: Any, server: str) -> None:
    page = new_page(service_workers="allow", permissions=["notifications"])
    page.goto(f"{server}/")
    controlled(page)
    cdp = page.context.new_cdp_session(page)
    registration = registration_id(page, cdp, f"{server}/")
    pushes = [
        {"title": "Your turn at Sara’s table", "body": "Tap to open the table and play.",
         "url": "/r/K7QX3MPA", "tag": "turn-K7QX3MPA", "lang": "en", "dir": "ltr"},
        {"title": "نوبت شماست، میز امید", "body": "بزنید تا میز باز شود و بازی کنید.", "url": "/r/M2PQ7RST",
         "tag": "turn-M2PQ7RST", "lang": "fa", "dir": "rtl"},
        {"title": "Elsewhere", "body": "", "url": "https://evil.example/r/K7", "tag": "turn-OTHER"},
    ]  # fmt: skip
    for count, push in enumerate(pushes, start=1):  # one at a time, as a push service delivers them
        cdp.send(
            "ServiceWorker.deliverPushMessage",
            {"origin": server, "registrationId": registration, "data": json.dumps(push)},
        )
        shown_when(page, lambda shown, count=count: len(shown) == count)
    shown = {n["tag"]: n for n in shown_when(page, lambda shown: len(shown) == len(pushes))}
    english, persian, elsewhere = (shown[p["tag"]] for p in pushes)
    assert (english["title"], english["body"]) == (pushes[0]["title"], pushes[0]["body"])
    assert english["icon"] == f"{server}/static/icons/icon-192.png"
    assert english["data"] == {"url": "/r/K7QX3MPA"} and english["dir"] == "ltr"
    assert (persian["title"], persian["lang"], persian["dir"]) == (pushes[1]["title"], "fa", "rtl")
    assert elsewhere["data"] == {"url": "/"}  # a tap opens only a table of this site
    # A newer push for the same table replaces its notification.
    again = {**pushes[0], "title": "Your turn at Sara’s table (2)"}
    cdp.send(
        "ServiceWorker.deliverPushMessage",
        {"origin": server, "registrationId": registration, "data": json.dumps(again)},
    )
    shown_now = shown_when(page, lambda shown: any(n["title"].endswith("(2)") for n in shown))
    assert len(shown_now) == len(pushes)


TAP = """async () => {
  const done = [];
  self.clients.openWindow = async (url) => { done.push(['open', url]); return null; };
  WindowClient.prototype.focus = async function () { done.push(['focus', this.url]); return this; };
  const shown = await self.registration.getNotifications();
  const tags = ['turn-K7QX3MPA', 'turn-M2PQ7RST', 'turn-OTHER'];
  for (const tag of tags) await openTable(shown.find((n) => n.tag === tag).data.url);
  await openTable('/r/k7qx3mpa/');  // the same table, in other letters
  await openTable('//evil.example/r/K7QX3MPA');  // another site, however written
  await openTable(undefined);
  return done;
}"""


def test_a_tap_focuses_the_tables_open_window_or_opens_one_there_and_only_on_this_site(
    new_page: Any, server: str
) -> None:
    page = new_page(service_workers="allow", permissions=["notifications"])
    page.goto(f"{server}/")
    controlled(page)
    cdp = page.context.new_cdp_session(page)
    registration = registration_id(page, cdp, f"{server}/")
    page.goto(f"{server}/r/K7QX3MPA")  # a window open at one table
    for code, url in (
        ("K7QX3MPA", "/r/K7QX3MPA"),
        ("M2PQ7RST", "/r/M2PQ7RST"),
        ("OTHER", "https://evil.example/r/K7"),
    ):
        push = {
            "title": "Your turn",
            "body": "",
            "url": url,
            "tag": f"turn-{code}",
            "lang": "en",
            "dir": "ltr",
        }
        cdp.send(
            "ServiceWorker.deliverPushMessage",
            {"origin": server, "registrationId": registration, "data": json.dumps(push)},
        )
    shown_when(page, lambda shown: len(shown) == 3)
    (worker,) = page.context.service_workers
    assert worker.evaluate(TAP) == [
        ["focus", f"{server}/r/K7QX3MPA"],
        ["open", f"{server}/r/M2PQ7RST"],
        ["open", f"{server}/"],
        ["focus", f"{server}/r/K7QX3MPA"],
        ["open", f"{server}/"],
        ["open", f"{server}/"],
    ]
