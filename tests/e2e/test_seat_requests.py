"""Asking for a bot's seat in Chromium on a phone, in English and Persian: a spectator asks mid-round, the
host approves on the page, and the seat passes when the next round is dealt (not before)."""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from tests.api.test_history import quick_move

from .conftest import screenshot

pytestmark = pytest.mark.e2e

SHOTS = Path("/tmp/seat-shots")


class HostPlayer(threading.Thread):
    """The host's seat played over its own socket: one draw in round 1, then (once ``go`` is set) on to the
    deal of round 2, where it stops."""

    def __init__(self, server: str, code: str, token: str) -> None:
        super().__init__(daemon=True)
        self.url = server.replace("http", "ws", 1) + f"/ws/{code}"
        self.token = token
        self.drawn = threading.Event()
        self.go = threading.Event()
        self.done = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self._play()
        except BaseException as exc:  # reported by the test
            self.error = exc
        finally:
            self.done.set()

    def _play(self) -> None:
        with connect(self.url) as ws:
            ws.send(json.dumps({"type": "hello", "token": self.token}))
            ws.send(json.dumps({"type": "start"}))
            moves = 0
            while True:
                message = json.loads(ws.recv(timeout=30))
                game = message.get("game") if message["type"] == "state" else None
                if game is None:
                    continue
                if game["round"] >= 2:
                    return
                if game["turn"] != 0 or game["phase"] == "game_over":
                    continue
                if moves == 1:
                    self.drawn.set()
                    assert self.go.wait(60), "the host never approved"
                moves += 1
                ws.send(json.dumps({"type": "action", "id": f"h{moves}", "action": quick_move(game)}))


def _shot(page: Any, name: str) -> None:
    path = screenshot(page, name)
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(path, SHOTS / name)


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_a_spectator_asks_the_host_approves_and_the_seat_passes_at_the_next_round(
    new_page: Any, server: str, lang: str
) -> None:
    created = httpx.post(f"{server}/api/rooms", json={"name": "Sara", "seats": 3, "bots": 2}).json()
    code, token = created["code"], created["token"]
    host_player = HostPlayer(server, code, token)
    host_player.start()
    assert host_player.drawn.wait(30), host_player.error  # round 1 is under way

    host = new_page(390, 844, lang=lang)
    host.add_init_script(f"localStorage.setItem('tt.token.{code}', '{token}');")
    host.goto(f"{server}/r/{code}")
    host.wait_for_selector("[data-testid=table]")

    guest = new_page(390, 844, lang=lang)
    guest.goto(f"{server}/r/{code}")
    guest.click("[data-testid=watch]")
    guest.wait_for_selector("[data-testid=table]")
    assert guest.locator("[data-testid=ask-seat-0]").count() == 0  # a person's seat is never offered
    guest.click("[data-testid=ask-seat-1]")
    guest.fill("[data-testid=ask-name]", "Nima" if lang == "en" else "نیما")
    _shot(guest, f"seat-ask-form-{lang}.png")
    guest.click("[data-testid=ask-send]")
    waiting = guest.locator("[data-testid=request-1]")
    # The page knows the request is its own (its Withdraw shows) once the server's answer to it is here: the
    # table's state with the request can come a moment before (the room shows a change, then answers the
    # asker), when the page reads it as somebody else's; seen once on a loaded machine.
    guest.locator("[data-testid=withdraw-1]").wait_for()
    assert waiting.inner_text().strip() != ""
    assert guest.locator("[data-testid=ask-seat-2]").count() == 0  # one request at a time
    _shot(guest, f"seat-waiting-{lang}.png")

    host.wait_for_selector("[data-testid=approve-1]")
    _shot(host, f"seat-host-approve-{lang}.png")
    host.click("[data-testid=approve-1]")
    host.wait_for_selector("[data-testid=approve-1]", state="detached")
    # Mid-round nothing passes: the guest still watches, told the seat is theirs from the next round.
    guest.wait_for_function("() => !document.querySelector('[data-testid=withdraw-1]')")
    assert guest.locator("[data-testid=table]").get_attribute("data-round") == "1"
    assert guest.locator(".hand-panel").count() == 0
    _shot(guest, f"seat-approved-waiting-{lang}.png")

    host_player.go.set()
    assert host_player.done.wait(60) and host_player.error is None, host_player.error
    guest.wait_for_selector("[data-testid=table][data-round='2']")
    guest.wait_for_selector(".hand-panel")  # the seat's own hand: it is theirs now
    assert guest.locator("[data-testid=player-1].you").count() == 1
    _shot(guest, f"seat-taken-round2-{lang}.png")
