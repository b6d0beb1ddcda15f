"""Accessibility in Chromium: axe-core finds no serious or critical violation on any page or state, in English
and Persian; dialogs keep and give back the keyboard; focus survives a discard; cards say which group they
are in; the turn timer warns when time runs low."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe

from .conftest import screenshot
from .test_client import my_turn, take_turn
from .test_table import render_table, start_against_a_bot

pytestmark = pytest.mark.e2e

LANGS = ["en", "fa"]
# The current axe-core, vendored with its licence (the copy bundled in axe-playwright-python is older and
# misses rules such as label-content-name-mismatch): see tests/e2e/vendor/axe-core-*/README.md.
AXE_CORE = Path(__file__).parent / "vendor" / "axe-core-4.14.1" / "axe.min.js"
_axe = Axe.from_file(AXE_CORE)


def serious_violations(page: Any) -> list[str]:
    """axe-core's serious and critical violations on the page as it is now, one line per rule and node."""
    results = _axe.run(page, options={"resultTypes": ["violations"]})
    version = results.response["testEngine"]["version"]
    assert tuple(int(part) for part in version.split(".")[:2]) >= (4, 14), f"axe-core {version} is too old"
    found = []
    for violation in results.response["violations"]:
        if violation["impact"] in ("serious", "critical"):
            for node in violation["nodes"]:
                found.append(
                    f"{violation['id']} ({violation['impact']}): {node['target']} {node['html'][:160]}"
                    f" -- {node.get('failureSummary', '')[:300]}"
                )
    return found


# A dialog fades in (0.2 s); on a loaded machine axe could measure its colours half-way. What a person reads
# is the end of each finite animation, so those are finished first (endless pulses are left running).
FINISH_ANIMATIONS = """() => { for (const a of document.getAnimations()) {
  if (a.effect && a.effect.getComputedTiming().iterations !== Infinity) a.finish();
} }"""


def assert_accessible(page: Any, where: str) -> None:
    page.evaluate(FINISH_ANIMATIONS)
    found = serious_violations(page)
    assert not found, f"{where}:\n" + "\n".join(found)


def a_page(new_page: Any, lang: str, width: int = 1024, height: int = 760) -> Any:
    """A page in ``lang`` without animations (so colour contrast is measured on what is finally shown)."""
    return new_page(width, height, lang, reduced_motion="reduce")


@pytest.mark.parametrize("lang", LANGS)
def test_home_join_and_lobby_pages(new_page: Any, server: str, lang: str) -> None:
    page = a_page(new_page, lang)
    page.goto(f"{server}/")
    page.wait_for_selector("[data-testid=create]")
    assert page.evaluate("document.documentElement.lang") == lang
    assert_accessible(page, "home")
    page.fill("[data-testid=create-name]", "Sara")
    page.select_option("[data-testid=create-seats]", "3")
    page.click("[data-testid=add-bot]")
    page.click("[data-testid=create]")
    page.wait_for_selector("[data-testid=lobby]")
    page.wait_for_selector("[data-testid=qr]")
    assert_accessible(page, "lobby (host)")

    guest = a_page(new_page, lang, 390, 844)
    guest.goto(page.url)
    guest.wait_for_selector("[data-testid=join-name]")
    assert_accessible(guest, "join form")
    guest.fill("[data-testid=join-name]", "Omid")
    guest.click("[data-testid=join-seat]")
    guest.wait_for_selector("[data-testid=lobby]")
    assert_accessible(guest, "lobby (guest)")
    # The host's lobby with a person seated: the buttons to make them host or remove them.
    page.wait_for_selector("[data-testid^=make-host-]")
    assert_accessible(page, "lobby (host), a guest seated")

    guest.goto(f"{server}/no/such/page")
    guest.wait_for_selector("[data-testid=not-found]")
    assert_accessible(guest, "unknown page")


@pytest.mark.parametrize("lang", LANGS)
def test_the_table_your_turn_and_not_and_the_round_results(new_page: Any, server: str, lang: str) -> None:
    page = a_page(new_page, lang, 390, 844)
    start_against_a_bot(page, server)
    assert_accessible(page, "table, your turn to draw")
    page.click("[data-testid=stock]")
    page.wait_for_selector("[data-testid=table][data-phase='discard']")
    assert_accessible(page, "table, your turn to discard")

    # Not your turn, with a turn timer running and a spectator count (a made-up view).
    other = a_page(new_page, lang, 390, 844)
    render_table(other, server, lang, game={"turn": 1, "legal": [], "phase": "draw"}, timer=True)
    assert_accessible(other, "table, not your turn")
    # A hand that can go out: the Go out button, then choosing the card to go out with.
    render_table(other, server, lang, game={"can_go_out": ["KC"], "legal": ["discard", "go_out"]})
    other.wait_for_selector("[data-testid=go-out]")
    assert_accessible(other, "table, a hand that can go out")
    other.click("[data-testid=go-out]")
    other.wait_for_selector("[data-testid=go-out][aria-pressed=true]")
    assert_accessible(other, "table, choosing the card to go out with")

    # Play on until a round ends: its results dialog.
    started = time.monotonic()
    while not page.locator("[data-testid=continue]").count():
        assert time.monotonic() - started < 120, "no round ended in time"
        if my_turn(page):
            take_turn(page)
        else:
            time.sleep(0.02)
    page.wait_for_selector("[data-testid=reveal]")
    assert_accessible(page, "round results dialog")
    page.click("[data-testid=continue]")
    page.click("[data-testid=scores]")
    page.wait_for_selector("[data-testid=score-sheet]")
    assert_accessible(page, "score sheet dialog")


@pytest.mark.parametrize("lang", LANGS)
def test_game_over_history_and_replay(
    new_page: Any, server: str, lang: str, finished_game: tuple[str, int]
) -> None:
    code, game_id = finished_game
    page = a_page(new_page, lang)
    page.goto(f"{server}/r/{code}")
    page.click("[data-testid=watch]")
    page.wait_for_selector("[data-testid=winner]")
    assert_accessible(page, "game over dialog")
    page.goto(f"{server}/r/{code}/history")
    page.wait_for_selector(f"[data-testid=game-{game_id}]")
    assert_accessible(page, "history")
    page.goto(f"{server}/r/{code}/replay/{game_id}")
    page.wait_for_selector("[data-testid=replay][data-index='0']")
    assert_accessible(page, "replay, first step")
    page.click("[data-testid=replay-next-round]")
    page.wait_for_selector("[data-testid=replay][data-round='2']")
    page.keyboard.press("End")
    page.wait_for_selector("[data-testid=replay][data-phase='game_over']")
    assert_accessible(page, "replay, last step")
    screenshot(page, f"a11y-replay-{lang}.png")


@pytest.mark.parametrize(("lang", "width", "height"), [("en", 390, 844), ("fa", 390, 844), ("fa", 1280, 900)])
def test_the_standings_pages(
    new_page: Any, server: str, lang: str, width: int, height: int, finished_game: tuple[str, int]
) -> None:
    _code, game_id = finished_game  # Sara's: a record on this server
    page = a_page(new_page, lang, width, height)
    page.goto(f"{server}/standings")
    page.wait_for_selector("[data-testid=players-board]")
    assert_accessible(page, "standings, most wins")
    for board in ("average", "fame", "shame"):
        page.click(f"[data-testid=board-{board}]")
        page.wait_for_selector(f"[data-testid=standings][data-board={board}] [data-testid=board-row]")
        assert_accessible(page, f"standings, {board}")
    # Sara's game against bots rated nobody: the board by rating may be empty.
    page.click("[data-testid=board-rating]")
    page.wait_for_selector(
        "[data-testid=standings][data-board=rating] :is([data-testid=no-records], [data-testid=rating-board])"
    )
    assert_accessible(page, "standings, rating")
    page.goto(f"{server}/standings/Sara")
    page.wait_for_selector("[data-testid=fig-games]")
    assert_accessible(page, "a player's standings")
    screenshot(page, f"a11y-standings-player-{lang}-{width}.png", full_page=True)
    page.goto(f"{server}/standings/No%20one%20yet")
    page.wait_for_selector("[data-testid=player-missing]")
    assert_accessible(page, "a name with no record")
    page.goto(f"{server}/games/{game_id}")
    page.wait_for_selector("[data-testid=replay][data-index='0']")
    assert_accessible(page, "a replay by the game's id")


def test_the_api_page(new_page: Any, server: str) -> None:
    page = a_page(new_page, "en")
    page.goto(f"{server}/docs")
    page.wait_for_selector(".swagger-ui .opblock")
    assert_accessible(page, "API docs")


FOCUS_IN_DIALOG = "() => !!document.activeElement?.closest('#overlay dialog')"


def test_dialogs_are_modal_keep_the_keyboard_and_give_it_back(new_page: Any, server: str) -> None:
    page = a_page(new_page, "en", 390, 844)
    start_against_a_bot(page, server)
    page.focus("[data-testid=scores]")
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=score-sheet]")
    # A native modal <dialog>: the page behind it is inert, so Tab and Shift+Tab stay inside.
    assert page.evaluate("() => document.querySelector('#overlay dialog')?.matches(':modal') ?? false")
    assert page.evaluate(FOCUS_IN_DIALOG)
    for key in ["Tab"] * 6 + ["Shift+Tab"] * 6:
        page.keyboard.press(key)
        assert page.evaluate(FOCUS_IN_DIALOG), (
            f"{key} left the dialog for {page.evaluate('document.activeElement.outerHTML')[:120]}"
        )
    page.keyboard.press("Escape")
    page.wait_for_selector("#overlay dialog", state="detached")
    assert page.evaluate("document.activeElement.dataset.testid") == "scores", "focus goes back where it was"

    # Closing by its button gives the keyboard back too.
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=score-sheet]")
    page.focus("[data-testid=continue]")
    page.keyboard.press("Enter")
    page.wait_for_selector("#overlay dialog", state="detached")
    assert page.evaluate("document.activeElement.dataset.testid") == "scores"


def test_after_a_discard_the_keyboard_stays_in_the_hand(new_page: Any, server: str) -> None:
    page = a_page(new_page, "en", 390, 844)
    start_against_a_bot(page, server)
    # Start went with the lobby: the keyboard is on the table (the stock, or the hand), not on the page.
    assert page.evaluate("!!document.activeElement.closest('[data-testid=stock], .hand')")
    page.focus("[data-testid=stock]")
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=table][data-phase='discard']")
    # Throw the last card of the hand (the place the keyboard was on is then gone).
    last = page.locator(".hand .card").last
    thrown = last.get_attribute("data-card")
    last.focus()
    version = page.locator("[data-testid=table]").get_attribute("data-version")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "v => document.querySelector('[data-testid=table]').dataset.version !== v && "
        "document.querySelector('[data-testid=table]').dataset.pending === '0'",
        arg=version,
    )
    page.wait_for_timeout(300)  # the bot's answer, and any redraw it brings
    focused = page.evaluate(
        "() => ({inHand: !!document.activeElement.closest('.hand'), inDialog:"
        " !!document.activeElement.closest('#overlay dialog'), tag: document.activeElement.tagName,"
        " card: document.activeElement.dataset.card})"
    )
    assert focused["inHand"] or focused["inDialog"], f"focus was lost after throwing {thrown}: {focused}"


GROUPED_HAND = {
    "hand": ["5H", "5D", "5S", "7H", "8H", "9H", "KC"],
    "arrangement": {
        "melds": [{"kind": "set", "cards": ["5H", "5D", "5S"]}, {"kind": "run", "cards": ["7H", "8H", "9H"]}],
        "deadwood": ["KC"],
        "penalty": 10,
    },
}


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        (
            "en",
            {
                "5H": "5♥: 5 of hearts, in a set",
                "8H": "8♥: 8 of hearts, in a run",
                "KC": "K♣: king of clubs, unmelded",
            },
        ),
        # What is printed on the card comes first, as printed (label in name, WCAG 2.5.3).
        ("fa", {"5H": "5♥: ۵ دل، در ست", "8H": "8♥: ۸ دل، در ردیف", "KC": "K♣: شاه گشنیز، بی‌ترکیب"}),
    ],
)
def test_a_card_says_which_group_it_is_in(
    new_page: Any, server: str, lang: str, words: dict[str, str]
) -> None:
    page = a_page(new_page, lang, 390, 844)
    render_table(page, server, lang, game=GROUPED_HAND)
    label = "card => document.querySelector(`.hand .card[data-card='${card}']`).getAttribute('aria-label')"
    for card, expected in words.items():
        assert page.evaluate(label, card) == expected
    # In the player's own order (grouping off) each card still says where the server's best melds put it.
    page.locator("[data-testid=group-toggle]").uncheck()
    page.wait_for_selector(".hand .group-all")
    for card, expected in words.items():
        assert page.evaluate(label, card) == expected


SET_DEADLINE = """seconds => window.__update({}, {
  turn_deadline: new Date(Date.now() + seconds * 1000).toISOString(),
  server_time: new Date().toISOString() })"""


@pytest.mark.parametrize(("lang", "motion"), [("en", "reduce"), ("fa", "no-preference")])
def test_the_turn_timer_warns_when_time_runs_low(new_page: Any, server: str, lang: str, motion: str) -> None:
    page = new_page(390, 844, lang, reduced_motion=motion)
    render_table(page, server, lang, timer=True)
    pill = page.locator("[data-testid=countdown]")
    warning = page.locator("[data-testid=timer-warning]")
    assert warning.get_attribute("aria-live") == "polite"
    assert "low" not in (pill.get_attribute("class") or "") and warning.inner_text() == ""
    page.evaluate(SET_DEADLINE, 11.5)
    page.wait_for_selector("[data-testid=countdown].low", timeout=5_000)
    page.wait_for_function("() => document.querySelector('[data-testid=timer-warning]').textContent !== ''")
    # Said as the pill reaches 10 s (9 if a busy machine delayed the second's tick).
    said = warning.inner_text()
    if lang == "en":
        assert said in ("10 seconds left to play", "9 seconds left to play"), said
    else:
        assert said in ("۱۰ ثانیه تا پایان نوبت شما مانده", "۹ ثانیه تا پایان نوبت شما مانده"), said
    animation = page.evaluate(
        "getComputedStyle(document.querySelector('[data-testid=countdown]')).animationName"
    )
    assert (animation == "none") == (motion == "reduce"), animation
    colour = page.evaluate(
        "getComputedStyle(document.querySelector('[data-testid=countdown]')).backgroundColor"
    )
    assert colour == "rgb(179, 38, 30)", colour  # --danger: the pill turns red
    screenshot(page, f"timer-low-{lang}.png")
    # It is said once per turn, and not at all on someone else's turn.
    page.wait_for_timeout(1200)
    assert warning.inner_text() == said
    page.evaluate("() => window.__update({ turn: 1, legal: [] })")
    page.evaluate(SET_DEADLINE, 9)
    page.wait_for_timeout(1300)
    assert warning.inner_text() == ""
