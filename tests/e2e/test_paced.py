"""A table played at its own pace, in the browser (issue 35): the host chooses the pace in the lobby, in
English and Persian, on a phone and a laptop; the game carries it, and the turn's countdown reads in hours
and minutes rather than thousands of seconds."""

from __future__ import annotations

import re
from typing import Any

import pytest

from .conftest import open_lobby, screenshot
from .test_client import take_turn
from .test_table import SocketTap

LABELS = {"en": "8 h a turn", "fa": "۸ ساعت برای هر نوبت"}
HOURS_LEFT = {"en": r"^[78] h [0-9]+ min$", "fa": r"^[۷۸] ساعت و [۰-۹]+ دقیقه$"}


@pytest.mark.parametrize(
    ("lang", "width", "height"), [("en", 390, 844), ("fa", 390, 844), ("en", 1280, 800), ("fa", 1280, 800)]
)
def test_a_host_chooses_a_pace_and_the_turn_shows_the_hours_left(
    new_page: Any, server: str, lang: str, width: int, height: int
) -> None:
    page = new_page(width, height)
    tap = SocketTap(page)
    page.goto(f"{server}/")
    page.evaluate(f"localStorage.setItem('tt.lang', '{lang}')")
    open_lobby(page, server, bot=True)
    pace = page.locator("[data-testid=lobby] #opt-pace")
    assert pace.input_value() == "live", "a new table is live"
    pace.select_option("8")
    page.wait_for_function("() => document.querySelector('#opt-pace')?.value === '8'")
    assert page.locator("#opt-pace option:checked").inner_text() == LABELS[lang]
    tap.until_option(page, "pace", 8)
    pace.scroll_into_view_if_needed()
    screenshot(page, f"paced-lobby-{lang}-{width}.png")

    page.click("[data-testid=start]")
    page.wait_for_selector("[data-testid=table][data-my-turn='1'][data-phase='draw']")
    assert tap.last_state is not None and tap.last_state["game"]["options"]["pace"] == 8
    pill = page.locator("[data-testid=countdown]")
    assert re.match(HOURS_LEFT[lang], pill.inner_text()), pill.inner_text()
    take_turn(page)  # draw
    take_turn(page)  # discard: the bot plays, and the turn comes back with a new 8 hours
    page.wait_for_selector("[data-testid=table][data-my-turn='1'][data-phase='draw']")
    assert re.match(HOURS_LEFT[lang], pill.inner_text()), pill.inner_text()
    screenshot(page, f"paced-table-{lang}-{width}.png")


# Headless Chromium's own PushManager reaches Google's push service, which this network cannot: the page's
# subscribe is given a subscription of the same shape (a public https endpoint, a real P-256 key). What is
# tested is the page's part: the bell's tap asks once, the server takes the subscription, off asks it to stop.
FAKE_PUSH = """
PushManager.prototype.getSubscription = async function () { return window.__sub || null; };
PushManager.prototype.subscribe = async function (options) {
  window.__subscribed = (window.__subscribed || 0) + 1;
  const b64 = (n) => btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(n))))
    .replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
  const pair = await crypto.subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, true, ['deriveBits']);
  const raw = new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey));
  const p256dh = btoa(String.fromCharCode(...raw))
    .replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
  window.__sub = {
    endpoint: 'https://push.example.net/send/' + b64(12), options,
    toJSON() { return { endpoint: this.endpoint, keys: { p256dh, auth: b64(16) } }; },
    unsubscribe: async () => true,
  };
  return window.__sub;
};
"""


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_the_bell_at_a_paced_table_asks_for_turn_notifications_and_off_stops_them(
    new_page: Any, server: str, lang: str
) -> None:
    page = new_page(390, 844, lang, service_workers="allow", permissions=["notifications"])
    page.add_init_script(FAKE_PUSH)
    tap = SocketTap(page)
    open_lobby(page, server, bot=True)
    page.locator("[data-testid=lobby] #opt-pace").select_option("24")
    page.wait_for_function("() => document.querySelector('#opt-pace')?.value === '24'")
    tap.until_option(page, "pace", 24)
    page.click("[data-testid=start]")
    page.wait_for_selector("[data-testid=table][data-my-turn='1']")
    assert page.evaluate("window.__subscribed || 0") == 0, "nothing is asked before the tap"

    with page.expect_response(lambda r: r.url.endswith("/push") and r.request.method == "POST") as on:
        page.click("[data-testid=notify]")
    assert on.value.status == 204, on.value.text()
    assert page.evaluate("window.__subscribed") == 1
    assert page.locator("[data-testid=notify]").get_attribute("aria-pressed") == "true"
    screenshot(page, f"paced-bell-on-{lang}.png")

    with page.expect_response(lambda r: r.url.endswith("/push/off")) as off:
        page.click("[data-testid=notify]")
    assert off.value.status == 204, off.value.text()
