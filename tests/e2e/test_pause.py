"""The pause between rounds in the browser: the round's results show a live countdown and Continue, the bot
and the turn timer wait behind them, and pressing Continue (the only person present) starts the next round,
closing the results by themselves."""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from .conftest import screenshot, serving
from .test_client import my_turn, table_attr, take_turn

pytestmark = pytest.mark.e2e

BREAK = 40
PERSIAN_DIGITS = set("۰۱۲۳۴۵۶۷۸۹")


@pytest.fixture(scope="module")
def paused_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server of its own whose tables pause 40 s between rounds (the suite's server does not pause)."""
    with serving(tmp_path_factory.mktemp("e2e-pause"), ROUND_BREAK_SECONDS=str(BREAK)) as base:
        yield base


def open_table(new_page: Any, base: str, lang: str) -> Any:
    """Sara's table with a bot and a 30 s turn timer, started, on a phone."""
    body = json.dumps({"name": "Sara", "seats": 2, "bots": ["normal"], "options": {"turn_timer": 30}})
    request = urllib.request.Request(
        f"{base}/api/rooms", data=body.encode(), headers={"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        created = json.loads(answer.read())
    page = new_page(390, 844, lang=lang, is_mobile=True, has_touch=True)
    page.add_init_script(f"localStorage.setItem('tt.token.{created['code']}', '{created['token']}');")
    page.goto(f"{base}/r/{created['code']}")
    page.click("[data-testid=start]")
    page.wait_for_selector("[data-testid=table]")
    return page


def finish_round_one(page: Any) -> None:
    started = time.monotonic()
    while not page.locator("[data-testid=score-sheet]").count():
        assert time.monotonic() - started < 120, "round 1 did not finish in time"
        if my_turn(page):
            take_turn(page)
        else:
            time.sleep(0.05)


def seconds(text: str) -> int:
    western = "".join(str("۰۱۲۳۴۵۶۷۸۹".index(c)) if c in PERSIAN_DIGITS else c for c in text)
    return int("".join(c for c in western if c.isdigit()))


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_the_results_pause_the_table_until_continue(new_page: Any, paused_server: str, lang: str) -> None:
    page = open_table(new_page, paused_server, lang)
    finish_round_one(page)
    countdown = page.locator("[data-testid=pause-left]")
    countdown.wait_for()
    first = countdown.inner_text()
    assert 0 < seconds(first) <= BREAK
    if lang == "fa":
        assert PERSIAN_DIGITS & set(first) and not any(c.isascii() and c.isdigit() for c in first), first
        assert page.evaluate("document.documentElement.dir") == "rtl"
    else:
        assert first.startswith("Next round in")
    assert page.locator("[data-testid=ready-0]").get_attribute("data-ready") == "0"
    assert page.locator("[data-testid=ready-1]").count() == 0, "bots are not waited for"
    assert table_attr(page, "round") == "2"
    version = table_attr(page, "version")
    time.sleep(2.2)  # the bot plays at once (BOT_DELAY_MS=0) when nothing holds it: here the pause does
    assert table_attr(page, "version") == version, "the bot played behind the results"
    assert seconds(countdown.inner_text()) < seconds(first), "the countdown is live"
    assert page.locator(".player .countdown").count() == 0, "no turn timer runs during the pause"
    screenshot(page, f"pause-{lang}.png")

    page.click("[data-testid=continue]")  # the only person here: the next round starts now
    page.wait_for_selector("[data-testid=score-sheet]", state="detached")
    assert table_attr(page, "round") == "2"
    # Told so when the round's first turn is mine, and the turn timer runs from now. (When the bot has the
    # first turn it plays at once, and the turn that follows is mine without any notice: so the version.)
    if table_attr(page, "my-turn") == "1" and table_attr(page, "version") == version:
        # The notice comes with the server's word that the pause is over (the dialog may close a moment
        # before it); it shows for 4 s only, so its text is read whether or not it still shows.
        page.wait_for_function("() => document.querySelector('#toast').textContent !== ''")
        told = page.locator("#toast").text_content()
        assert told in ("Round 2 has started: it's your turn.", "دست ۲ شروع شد: نوبت شماست."), told
        assert page.locator(".player.turn .countdown").count() == 1, "the turn timer runs after the pause"
    else:
        page.wait_for_function(
            "v => document.querySelector('[data-testid=table]').dataset.version !== v", arg=version
        )
    screenshot(page, f"pause-after-{lang}.png")


BEHIND_THE_FOOT = """() => {
  const dialog = document.querySelector('dialog.dialog');
  const foot = dialog.querySelector('.pause-foot');
  const cell = dialog.querySelector('.score-sheet tfoot th');
  const y = (el) => { const r = el.getBoundingClientRect(); return r.top + r.height / 2; };
  dialog.scrollTop += y(cell) - y(foot);  // the sheet's totals row scrolled under the sticky foot
  const box = cell.getBoundingClientRect();
  const hit = document.elementFromPoint(box.left + box.width / 2, y(foot));
  return { inFoot: !!hit?.closest('.pause-foot'), hit: hit?.outerHTML.slice(0, 80), moved: dialog.scrollTop };
}"""


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_the_score_sheet_scrolls_under_the_continue_bar_not_over_it(
    new_page: Any, paused_server: str, lang: str
) -> None:
    """The sheet's sticky first column must not paint over the results' sticky foot (who is ready and
    Continue) when the dialog is longer than the screen."""
    page = open_table(new_page, paused_server, lang)
    finish_round_one(page)
    page.locator("[data-testid=pause]").wait_for()
    page.set_viewport_size({"width": 390, "height": 440})  # a dialog longer than the screen, as from round 4
    page.wait_for_timeout(200)
    seen = page.evaluate(BEHIND_THE_FOOT)
    assert seen["moved"] > 0, seen
    assert seen["inFoot"], seen
    screenshot(page, f"pause-foot-over-sheet-{lang}.png")
