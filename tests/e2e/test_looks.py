"""Your way of seeing the cards and a face at the table, in Chromium: the settings dialog (both languages,
modal, kept after a reload), larger cards that still fit a phone's 14-card hand, the four-colour deck, sound
off meaning no chime; seat avatars picked in the lobby, seen by everyone and kept for the next table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .conftest import open_lobby, screenshot
from .test_a11y import assert_accessible
from .test_client import FOURTEEN, RENDER_TABLE, assert_hand_fits

pytestmark = pytest.mark.e2e

NOTICE_STUBS = (Path(__file__).parent / "notice_stubs.js").read_text(encoding="utf-8")
TITLES = {"en": "Settings", "fa": "تنظیمات"}
IN_DIALOG = "() => !!document.activeElement?.closest('[data-testid=settings-dialog]')"
CARD_WIDTH = "() => document.querySelector('.hand .card').getBoundingClientRect().width"
LARGE_FOUR_COLOURS = "() => { localStorage['tt.cards'] = 'large'; localStorage['tt.deck'] = 'four'; }"
COLOUR = "s => getComputedStyle(document.querySelector(`.hand .card[data-card='${s}']`)).color"


def fourteen_card_table(page: Any, server: str, lang: str) -> None:
    """Round 11 with a 14-card hand (hearts, spades, diamonds and clubs in it), drawn from a made-up view."""
    page.goto(f"{server}/")
    page.wait_for_selector("[data-testid=settings]")
    page.evaluate(RENDER_TABLE, {"lang": lang, "grouped": True, "game": FOURTEEN})
    page.wait_for_selector(".hand .card")


def no_sideways_scroll(page: Any) -> None:
    width, inner = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width <= inner, f"the page scrolls sideways: {width} > {inner}"


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_the_settings_change_the_cards_at_once_and_are_kept(new_page: Any, server: str, lang: str) -> None:
    page = new_page(390, 844, lang, is_mobile=True, has_touch=True, device_scale_factor=2)
    fourteen_card_table(page, server, lang)
    normal = page.evaluate(CARD_WIDTH)
    two_colours = {suit: page.evaluate(COLOUR, card) for suit, card in {"D": "9D", "C": "9C"}.items()}
    assert two_colours["D"] == "rgb(198, 45, 45)" and two_colours["C"] == "rgb(29, 36, 33)"

    gear = page.locator("[data-testid=settings]")
    assert gear.get_attribute("aria-label") == TITLES[lang]
    gear.click()
    dialog = page.locator("[data-testid=settings-dialog]")
    assert dialog.get_attribute("role") == "dialog" and dialog.get_attribute("aria-modal") == "true"
    assert page.locator("#settings-title").inner_text() == TITLES[lang]
    assert page.evaluate(IN_DIALOG), "the keyboard starts in the dialog"
    for key in ["Tab"] * 5 + ["Shift+Tab"] * 5:
        page.keyboard.press(key)
        assert page.evaluate(IN_DIALOG), f"{key} left the dialog"
    assert_accessible(page, f"settings dialog ({lang})")
    screenshot(page, f"settings-phone-{lang}.png")

    # Larger cards and four colours show at once, without a reload; the hand still fits the phone.
    page.click("[data-testid=setting-large_cards]")
    page.click("[data-testid=setting-four_colours]")
    assert page.evaluate(CARD_WIDTH) > normal + 8
    assert page.evaluate(COLOUR, "9D") == "rgb(26, 86, 196)"  # diamonds blue
    assert page.evaluate(COLOUR, "9C") == "rgb(23, 105, 45)"  # clubs green
    assert page.evaluate(COLOUR, "4H") == "rgb(198, 45, 45)"  # hearts red
    assert page.evaluate(COLOUR, "9S") == "rgb(29, 36, 33)"  # spades black
    page.keyboard.press("Escape")
    dialog.wait_for(state="detached")
    assert page.evaluate("document.activeElement.dataset.testid") == "settings", "focus goes back to the gear"
    page.wait_for_function(
        "() => [...document.querySelectorAll('.hand .card')]"
        ".every((c) => c.getBoundingClientRect().right <= 390)"
    )
    assert_hand_fits(page, 390)
    no_sideways_scroll(page)
    assert_accessible(page, f"large four-colour cards ({lang})")
    screenshot(page, f"large-four-colour-phone-{lang}.png")

    # Kept across a reload (per browser): the switches say so and the page is drawn that way.
    page.reload()
    page.wait_for_selector("[data-testid=settings]")
    looks = page.evaluate("[document.documentElement.dataset.cards, document.documentElement.dataset.deck]")
    assert looks == ["large", "four"]
    page.click("[data-testid=settings]")
    assert page.locator("[data-testid=setting-large_cards]").is_checked()
    assert page.locator("[data-testid=setting-four_colours]").is_checked()
    assert page.locator("[data-testid=setting-sound]").is_checked()  # on unless turned off
    page.click("[data-testid=settings-close]")
    page.locator("[data-testid=settings-dialog]").wait_for(state="detached")

    laptop = new_page(1280, 800, lang)
    fourteen_card_table(laptop, server, lang)
    laptop.click("[data-testid=settings]")
    screenshot(laptop, f"settings-laptop-{lang}.png")


def test_sound_off_means_no_chime_but_the_bell_still_tells(new_page: Any, server: str) -> None:
    page = new_page(390, 844)
    page.add_init_script(NOTICE_STUBS)
    page.goto(f"{server}/")
    page.wait_for_selector("[data-testid=settings]")
    turn = """async () => {
      const notify = await import('/static/js/notify.js');
      localStorage.setItem('tt.notify', 'on');  // the bell: tell me when my turn begins
      notify.resetTurnNotice();
      notify.noticeTurn(false, 'TEST');
      notify.noticeTurn(true, 'TEST');
      return [window.__chimes, window.__buzz.length];
    }"""
    assert page.evaluate(turn) == [1, 1]  # sound on (the default): a chime
    page.click("[data-testid=settings]")
    page.click("[data-testid=setting-sound]")
    page.click("[data-testid=settings-close]")
    assert page.evaluate(turn) == [1, 2], "sound off: no chime, but the vibration still comes"
    page.reload()
    page.wait_for_selector("[data-testid=settings]")
    assert page.evaluate(turn) == [0, 1], "still off after a reload (the stubs count afresh)"


def avatar_of(page: Any, seat: int) -> str | None:
    return page.locator(f"[data-testid=seat-{seat}] .avatar").get_attribute("data-avatar")


def wait_face(page: Any, seat: int, avatar: str) -> None:
    """Wait until the lobby shows ``avatar`` at ``seat``."""
    page.wait_for_function(
        "([seat, id]) => document.querySelector(`[data-testid=seat-${seat}] .avatar`)?.dataset.avatar === id",
        arg=[seat, avatar],
    )


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_two_browsers_see_each_others_face_and_the_pick_is_kept_for_the_next_table(
    new_page: Any, server: str, lang: str
) -> None:
    host = new_page(1280, 800, lang)
    code = open_lobby(host, server, "Sara", seats=3, bot=True)
    assert avatar_of(host, 0) == ""  # nothing picked yet: the name's first letter
    assert avatar_of(host, 1) == "robot"  # the bot
    host.click("[data-testid=avatar-pick-fox]")
    wait_face(host, 0, "fox")

    guest = new_page(390, 844, lang, is_mobile=True, has_touch=True, device_scale_factor=2)
    guest.goto(f"{server}/r/{code}")
    guest.locator(".seats .avatar[data-avatar=fox]").wait_for()  # the join form's seat list shows it too
    guest.fill("[data-testid=join-name]", "Omid")
    guest.click("[data-testid=join-seat]")
    guest.wait_for_selector("[data-testid=avatar-picker]")
    assert avatar_of(guest, 2) == ""
    guest.click("[data-testid=avatar-pick-owl]")
    wait_face(guest, 0, "fox")
    wait_face(host, 2, "owl")
    wait_face(guest, 2, "owl")  # each browser draws the face when the server's news reaches it
    guest.locator("[data-testid=avatar-pick-owl][aria-pressed=true]").wait_for()
    assert_accessible(guest, f"lobby with avatars ({lang})")
    screenshot(host, f"avatars-lobby-laptop-{lang}.png")
    screenshot(guest, f"avatars-lobby-phone-{lang}.png")

    # At the table: the seat chips, the turn strip and the score sheet show them, to everyone.
    for page in (host, guest):  # larger four-colour cards for the screenshots
        page.evaluate(LARGE_FOUR_COLOURS)
    host.click("[data-testid=start]")
    for page in (host, guest):
        page.wait_for_selector("[data-testid=table]")
        page.evaluate("async () => (await import('/static/js/views/settings.js')).applyLooks()")
        page.wait_for_selector("[data-testid=turn-strip] .avatar")
        assert page.locator("[data-testid=player-0] .avatar").get_attribute("data-avatar") == "fox"
        assert page.locator("[data-testid=player-1] .avatar").get_attribute("data-avatar") == "robot"
        assert page.locator("[data-testid=player-2] .avatar").get_attribute("data-avatar") == "owl"
        # The seat whose turn it is and its face, read in one go: a bot may move between two reads.
        seat, face = page.evaluate(
            """() => { const now = document.querySelector('[data-testid=strip-now]');
                       return [now.dataset.seat, now.querySelector('.avatar').dataset.avatar]; }"""
        )
        assert face == {"0": "fox", "1": "robot", "2": "owl"}[seat]
    no_sideways_scroll(guest)
    screenshot(host, f"avatars-table-laptop-{lang}.png")
    screenshot(guest, f"avatars-table-phone-{lang}.png")
    host.click("[data-testid=scores]")
    host.wait_for_selector("[data-testid=score-sheet] .avatar[data-avatar=owl]")
    screenshot(host, f"avatars-scores-laptop-{lang}.png")

    # The guest opens a table of their own: their seat starts with the face they picked.
    guest.goto(f"{server}/")
    guest.fill("[data-testid=create-name]", "Omid")
    guest.click("[data-testid=create]")
    guest.wait_for_selector("[data-testid=lobby]")
    wait_face(guest, 0, "owl")
    guest.locator("[data-testid=avatar-pick-owl][aria-pressed=true]").wait_for()
