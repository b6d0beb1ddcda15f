"""What the page keeps while the table changes under it (issue 24: the client renders with lit-html, by key):
the card that has the keyboard stays the same element, with the keyboard, while another player moves; a line
half typed in the chat, the keyboard in it and the place a reader scrolled back to survive new lines and
states. Both languages, a phone and a laptop."""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest

from .conftest import screenshot
from .test_client import VERSION_CHANGED, click_card, table_attr
from .test_table import SocketTap

pytestmark = pytest.mark.e2e

TAPS: dict[Any, SocketTap] = {}  # each page's tap on its socket (two_at_a_table's pages)


def my_turn(page: Any) -> bool:
    return table_attr(page, "my-turn") == "1"


def two_at_a_table(
    new_page: Any, server: str, lang: str, width: int, height: int
) -> tuple[Any, Any, SocketTap]:
    """Sara (``lang``, ``width`` x ``height``) and Omid at a started table of two people, both sockets
    tapped; returns Sara's page, Omid's page and Sara's tap."""
    host = new_page(width, height, lang=lang)
    tap = SocketTap(host)
    TAPS[host] = tap
    host.goto(f"{server}/")
    host.fill("[data-testid=create-name]", "Sara")
    host.click("[data-testid=create]")
    host.wait_for_selector("[data-testid=lobby]")
    friend = new_page(1024, 760)
    TAPS[friend] = SocketTap(friend)
    friend.goto(host.url)
    friend.fill("[data-testid=join-name]", "Omid")
    friend.click("[data-testid=join-seat]")
    friend.wait_for_selector("[data-testid=lobby]")
    host.wait_for_selector("[data-testid=seat-1]")
    host.click("[data-testid=start]")
    for page in (host, friend):
        page.wait_for_selector("[data-testid=table]")
    return host, friend, tap


def wait_for_turn(page: Any) -> None:
    page.wait_for_selector("[data-testid=table][data-my-turn='1']")


def play_whole_turn(page: Any) -> None:
    """Draw from the stock, then throw a card that does not go out (the round goes on, no results dialog):
    two moves, two states for everyone. When every card of the hand would go out (a deal of a few in a
    hundred: the page then marks them all, and plays any of them as going out), the page's socket sends a
    plain discard instead, which the rules allow (a player at zero may play on)."""
    version = table_attr(page, "version")
    page.click("[data-testid=stock]")
    page.wait_for_function(VERSION_CHANGED, arg=version)
    page.wait_for_selector("[data-testid=table][data-phase='discard'][data-pending='0']")
    version = table_attr(page, "version")
    keep = page.locator(".hand .card:not(.go-out-card)")
    if keep.count():
        click_card(page, keep.first)
    else:
        card = page.locator(".hand .card").first.get_attribute("data-card")
        move = {"type": "discard", "card": card}
        action_id = f"plain-{uuid.uuid4().hex[:12]}"  # an id of its own: the room never takes one id twice
        message = {"type": "action", "id": action_id, "version": int(version or 0), "action": move}
        TAPS[page].send_to_server(message)
    page.wait_for_function(VERSION_CHANGED, arg=version)


def omid_to_move(host: Any, friend: Any) -> None:
    """Once the first turn is known: if it is Sara's (the page under test), she plays it; then it is Omid's
    turn and Sara waits."""
    host.wait_for_function("() => !!document.querySelector('[data-testid=table][data-my-turn]')")
    friend.wait_for_function("() => !!document.querySelector('[data-testid=table][data-my-turn]')")
    deadline = time.monotonic() + 10
    while not (my_turn(host) or my_turn(friend)):
        if time.monotonic() > deadline:
            pytest.fail("nobody's turn")
        time.sleep(0.05)
    if my_turn(host):
        play_whole_turn(host)
    wait_for_turn(friend)


@pytest.mark.parametrize(("lang", "width", "height"), [("en", 390, 844), ("fa", 1280, 800)])
def test_a_focused_card_keeps_the_keyboard_while_the_other_player_moves(
    new_page: Any, server: str, lang: str, width: int, height: int
) -> None:
    host, friend, _ = two_at_a_table(new_page, server, lang, width, height)
    omid_to_move(host, friend)  # Omid plays while Sara waits, then it is her turn
    card = host.locator(".hand .card").nth(2)
    card.focus()
    focused = host.evaluate("""() => {
      window.__focusedCard = document.activeElement;
      return document.activeElement.dataset.card;
    }""")
    assert focused
    version = int(table_attr(host, "version") or 0)
    play_whole_turn(friend)
    host.wait_for_function(
        "v => Number(document.querySelector('[data-testid=table]').dataset.version) >= v + 2", arg=version
    )
    kept = host.evaluate("""() => ({
      same: document.activeElement === window.__focusedCard,
      connected: window.__focusedCard.isConnected,
      card: document.activeElement.dataset.card,
      inHand: !!document.activeElement.closest('.hand'),
    })""")
    assert kept == {"same": True, "connected": True, "card": focused, "inHand": True}, kept
    # It is her turn now (the states changed the stock and the status): the keyboard is still on her card.
    assert my_turn(host)
    screenshot(host, f"focus-kept-{lang}.png")


def chat_state(page: Any) -> dict[str, Any]:
    return dict(
        page.evaluate("""() => {
      const log = document.querySelector('[data-testid=chat-log]');
      const input = document.querySelector('[data-testid=chat-input]');
      return {
        typed: input.value, sameInput: input === window.__chatInput,
        focused: document.activeElement === input,
        top: log.scrollTop, height: log.scrollHeight, view: log.clientHeight, lines: log.children.length,
      };
    }""")
    )


@pytest.mark.parametrize(("lang", "width", "height"), [("fa", 390, 844), ("en", 1280, 800)])
def test_a_line_being_typed_and_the_chat_scroll_survive_new_lines_and_moves(
    new_page: Any, server: str, lang: str, width: int, height: int
) -> None:
    host, friend, tap = two_at_a_table(new_page, server, lang, width, height)
    omid_to_move(host, friend)
    details = host.locator(".chat-box")
    if details.get_attribute("open") is None:
        details.locator("summary").click()
    for n in range(30):  # more than the log shows (the server would take them 5 in 10 s: told as it would)
        tap.send({"type": "chat", "seat": 1, "name": "Omid", "text": f"line {n}"})
    host.locator("[data-testid=chat-log] li", has_text="line 29").wait_for()
    host.evaluate("document.querySelector('[data-testid=chat-log]').scrollTop = 40")  # reading back up
    host.click("[data-testid=chat-input]")
    host.keyboard.type("half a thought")
    host.evaluate("window.__chatInput = document.querySelector('[data-testid=chat-input]')")
    before = chat_state(host)
    assert before["height"] > before["view"] + 100, before  # the log scrolls: a kept place means something
    assert before["top"] == 40 and before["focused"], before

    # Omid says something and plays his turn: a line and several states come.
    version = int(table_attr(host, "version") or 0)
    friend.fill("[data-testid=chat-input]", "your turn")
    friend.press("[data-testid=chat-input]", "Enter")
    host.locator("[data-testid=chat-log] li", has_text="your turn").wait_for()
    play_whole_turn(friend)
    host.wait_for_function(
        "v => Number(document.querySelector('[data-testid=table]').dataset.version) >= v + 2", arg=version
    )
    after = chat_state(host)
    assert after["typed"] == "half a thought" and after["sameInput"] and after["focused"], after
    assert after["top"] == 40, f"the reader's place moved: {before} -> {after}"
    assert after["lines"] == before["lines"] + 1

    # At the end of the log, a new line is followed.
    host.evaluate(
        "(() => { const log = document.querySelector('[data-testid=chat-log]');"
        " log.scrollTop = log.scrollHeight; })()"
    )
    tap.send({"type": "chat", "seat": 1, "name": "Omid", "text": "one more"})
    host.locator("[data-testid=chat-log] li", has_text="one more").wait_for()
    end = chat_state(host)
    assert end["top"] + end["view"] >= end["height"] - 4, end
    assert end["typed"] == "half a thought" and end["focused"], end
    screenshot(host, f"chat-kept-{lang}.png")
