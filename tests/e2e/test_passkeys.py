"""Names kept with passkeys in Chromium, through the DevTools protocol's virtual authenticator (a platform
authenticator with user verification): keeping a name, a counted game played under it, the name refused in
another browser with no passkey (in its own language), a second device added with the one-time code, a
passkey removed; in English and Persian, on a phone and a laptop; axe on the new screens; and the message a
page that is not a secure context shows."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from .conftest import screenshot, serving
from .test_a11y import assert_accessible
from .test_standings import home, in_thread, play_table

pytestmark = pytest.mark.e2e

SETTINGS = {
    "MAX_MESSAGES_PER_SECOND": "1000",
    "MAX_CONNECTS_PER_SECOND": "100",
    "MAX_STANDINGS_PER_MINUTE": "1000",
    "MAX_PASSKEY_REQUESTS_PER_MINUTE": "1000",
    "ROUND_BREAK_SECONDS": "0",
    "TRUSTED_PROXIES": "127.0.0.1",  # the friend joins from a home of their own, so the game counts
}
SIZES = {"phone": (375, 760), "laptop": (1280, 900)}
KEPT = {
    "en": "That name (or one that reads the same) is kept by its holder with a passkey.",
    "fa": "این نام (یا نامی که همین‌طور خوانده می‌شود) را دارنده‌اش با کلید عبور (passkey) نگه داشته است.",
}


@pytest.fixture(scope="module")
def passkey_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(Path(tmp_path_factory.mktemp("passkey-server")), **SETTINGS) as base:
        # localhost: a secure context over plain http, and a host name a passkey may be made for (an IP
        # address may not be a relying party's id).
        yield base.replace("127.0.0.1", "localhost")


def with_authenticator(page: Any) -> str:
    """A platform authenticator with user verification for this page's browser: its id."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable", {"enableUI": False})
    options = {
        "protocol": "ctap2",
        "transport": "internal",
        "hasResidentKey": True,
        "hasUserVerification": True,
        "isUserVerified": True,
        "automaticPresenceSimulation": True,
    }
    found = cdp.send("WebAuthn.addVirtualAuthenticator", {"options": options})
    page.cdp = cdp  # keep the session (and its authenticator) for the page's life
    return str(found["authenticatorId"])


def credentials(page: Any, authenticator: str) -> list[dict[str, Any]]:
    found = page.cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})
    return list(found["credentials"])


def status(page: Any) -> str:
    return str(page.locator("[data-testid=passkeys-status]").inner_text()).strip()


def player(server: str, name: str) -> dict[str, Any]:
    response = httpx.get(f"{server}/api/players/{name}", timeout=30)
    assert response.status_code == 200, response.text
    return dict(response.json())


@pytest.mark.parametrize("lang", ["en", "fa"])
@pytest.mark.parametrize("size", list(SIZES))
def test_keep_a_name_play_under_it_be_refused_elsewhere_add_a_device_and_remove_a_passkey(
    new_page: Any, passkey_server: str, lang: str, size: str
) -> None:
    server = passkey_server
    name = f"Sara {lang} {size}"
    width, height = SIZES[size]

    # Keep the name: the passkeys page makes a passkey on this browser's authenticator.
    phone = new_page(width, height, lang)
    first = with_authenticator(phone)
    phone.goto(f"{server}/passkeys?name={name}")
    phone.wait_for_selector("[data-testid=keep-panel]")
    assert phone.locator("[data-testid=passkeys-insecure]").count() == 0
    assert_accessible(phone, "passkeys, keep a name")
    screenshot(phone, f"passkeys-keep-{lang}-{size}.png", full_page=True)
    phone.click("[data-testid=keep-name]")
    phone.wait_for_selector("[data-testid=passkeys-holder]")
    assert name in status(phone)
    assert len(credentials(phone, first)) == 1 and credentials(phone, first)[0]["isResidentCredential"]
    assert phone.locator("[data-testid=passkey-row]").count() == 1
    assert_accessible(phone, "passkeys, signed in")
    screenshot(phone, f"passkeys-kept-{lang}-{size}.png", full_page=True)
    cookie = next(c for c in phone.context.cookies() if c["name"] == "tt_session")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Lax"
    assert phone.evaluate("document.cookie").find("tt_session") == -1  # scripts never read it

    # A counted game under it: the browser opens the table (its session proves the name), a friend from
    # another home joins, and the seats are played to the end.
    phone.goto(f"{server}/")
    phone.fill("[data-testid=create-name]", name.upper())
    phone.click("[data-testid=create]")
    phone.wait_for_selector("[data-testid=lobby]")
    code = phone.url.rstrip("/").rsplit("/", 1)[-1]
    token = phone.evaluate(f"localStorage.getItem('tt.token.{code}')")
    assert token, "the browser keeps its seat's token"
    friend = httpx.post(
        f"{server}/api/rooms/{code}/join",
        json={"name": f"Omid {lang} {size}"},
        headers={"X-Forwarded-For": home("Omid")},
    ).json()["token"]
    phone.goto(f"{server}/standings")  # away from the table while Python plays its seat
    in_thread(play_table(server, [name.upper(), "Omid"], code=code, tokens=[token, friend]))
    record = player(server, name.lower())
    assert record["games"] == 1 and record["claimed"] is True and record["name"] == name.upper()
    phone.goto(f"{server}/standings/{name}")
    phone.wait_for_selector("[data-testid=kept-yours]")
    # Back at the table: the game-over dialog offers to keep one's own name (kept already: the page says so).
    phone.goto(f"{server}/r/{code}")
    keep = phone.locator("dialog [data-testid=keep-this-name]")
    keep.wait_for()
    keep.scroll_into_view_if_needed()
    screenshot(phone, f"passkeys-game-over-{lang}-{size}.png")
    keep.click()
    phone.wait_for_selector("[data-testid=passkeys-holder]")
    assert phone.locator("[data-testid=keep-panel]").count() == 0  # it is this browser's already

    # Another browser with no passkey: told, in its language, that the name is kept.
    other = new_page(width, height, lang)
    other.goto(f"{server}/")
    other.fill("[data-testid=create-name]", name.lower())
    other.click("[data-testid=create]")
    refusal = other.locator("[role=alert]").filter(has_text=KEPT[lang])
    refusal.first.wait_for()
    refusal.first.scroll_into_view_if_needed()
    screenshot(other, f"passkeys-refused-{lang}-{size}.png")
    other.goto(f"{server}/standings/{name}")
    other.wait_for_selector("[data-testid=kept-note]")
    other.goto(f"{server}/standings")
    other.wait_for_selector("[data-testid=players-board]")
    other.check("[data-testid=claimed-only]")
    other.wait_for_selector("[data-testid=kept-tag]")
    screenshot(other, f"passkeys-board-{lang}-{size}.png")
    shown = [t.strip() for t in other.locator("[data-testid=board-row] .player-link").all_inner_texts()]
    assert name.upper() in shown and not any(n.startswith("Omid") for n in shown)

    # A second device: the first shows a one-time code, the second enters it and makes its own passkey.
    phone.goto(f"{server}/passkeys")
    phone.click("[data-testid=show-code]")
    shown_code = phone.locator("[data-testid=device-code]").inner_text().strip()
    assert re.fullmatch(r"[A-Z2-9]{4}-[A-Z2-9]{4}", shown_code), shown_code
    screenshot(phone, f"passkeys-code-{lang}-{size}.png", full_page=True)
    laptop = new_page(width, height, lang)
    second = with_authenticator(laptop)
    laptop.goto(f"{server}/passkeys")
    laptop.wait_for_selector("[data-testid=add-device-panel]")
    assert_accessible(laptop, "passkeys, not signed in")
    laptop.fill("[data-testid=enter-code]", shown_code)
    laptop.click("[data-testid=add-device]")
    laptop.wait_for_selector("[data-testid=passkeys-holder]")
    assert laptop.locator("[data-testid=passkey-row]").count() == 2
    assert len(credentials(laptop, second)) == 1

    # Remove the first device's passkey from the second: one is left, and the first cannot sign in with it.
    first_id = laptop.locator("[data-testid=passkey-row] button").first.get_attribute("data-testid")
    laptop.click(f"[data-testid={first_id}]")
    expect(laptop.locator("[data-testid=passkey-row]")).to_have_count(1)
    phone.click("[data-testid=sign-out]")
    phone.wait_for_selector("[data-testid=sign-in-panel]")
    phone.fill("[data-testid=sign-in-name]", name)
    phone.click("[data-testid=sign-in]")
    phone.wait_for_selector("[data-testid=passkeys-error]")
    assert phone.locator("[data-testid=passkeys-holder]").count() == 0


def test_a_page_that_is_not_a_secure_context_says_keeping_a_name_needs_https(
    new_page: Any, passkey_server: str
) -> None:
    page = new_page(375, 760, "en")
    page.add_init_script("Object.defineProperty(window, 'isSecureContext', { value: false });")
    page.goto(f"{passkey_server}/passkeys?name=Nima")
    page.wait_for_selector("[data-testid=passkeys-insecure]")
    assert "https" in page.locator("[data-testid=passkeys-insecure]").inner_text()
    assert page.locator("[data-testid=keep-name]").is_disabled()
