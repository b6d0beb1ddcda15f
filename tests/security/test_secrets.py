"""Secrets stay secret: every frame sent to every seat, tab and spectator over a whole game is recorded and
checked against the authoritative state: no other seat's cards before the round's reveal, nothing of the
stock but its count, never the seed; and an unfinished game's seed is not to be had over REST either."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict
from typing import Any

import httpx
import pytest

from app.engine import GameState, action_from_dict, apply, new_game, view_for
from tests.api.wsclient import Client
from tests.reads import list_actions, load_game_state

from .conftest import LiveServer, Table, assert_not_logged, open_table
from .player import choose_from_view

CARD = re.compile(r"(10|[2-9AJQK])[SHDC]|JK")
HIDDEN_KEYS = {"seed", "stock", "hands", "first_dealer", "reshuffles", "token", "token_hash"}


def walk(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """(path, leaf) for every leaf; list indices are written as [] so paths can be compared to a pattern."""
    if isinstance(value, dict):
        for key, inner in value.items():
            yield f"{path}.{key}", None  # the key itself, to look for hidden keys
            yield from walk(inner, f"{path}.{key}")
    elif isinstance(value, list):
        for inner in value:
            yield from walk(inner, f"{path}[]")
    else:
        yield path, value


OWN_CARD_PATHS = re.compile(
    r"\.game\.(hand\[\]|drawn|can_go_out\[\]|arrangement\.(melds\[\]\.cards\[\]|deadwood\[\]))"
)
PUBLIC_CARD_PATHS = re.compile(r"\.game\.(discard_top|last_result\..*)|\.events\[\]\.card")
LAID_DOWN_PATHS = re.compile(r"\.game\.laid_down\.(melds\[\]\.cards\[\]|card)")


def leaks(frame: dict[str, Any], seat: int | None, state: GameState) -> list[str]:
    """What in one state frame (to ``seat``; None = spectator) is more than that seat may know."""
    problems: list[str] = []
    game = frame["game"]
    own: Counter[str] = Counter()
    laid: Counter[str] = Counter()
    for path, leaf in walk(frame):
        key = path.rsplit(".", 1)[-1]
        if leaf is None and key in HIDDEN_KEYS and not path.startswith(".game.last_result."):
            problems.append(f"hidden key {path}")
        if not isinstance(leaf, str) or not CARD.fullmatch(leaf):
            continue
        if OWN_CARD_PATHS.fullmatch(path):
            if seat is None:
                problems.append(f"a spectator got a card at {path}")
            elif path == ".game.hand[]":
                own[leaf] += 1
            elif Counter([leaf]) - Counter(str(c) for c in state.hands[seat]):
                problems.append(f"{path}={leaf} is not in seat {seat}'s hand")
        elif path == ".game.laid_down.melds[].cards[]":
            laid[leaf] += 1
        elif not (PUBLIC_CARD_PATHS.fullmatch(path) or LAID_DOWN_PATHS.fullmatch(path)):
            problems.append(f"a card at {path}={leaf}")
    out = state.went_out if state.went_out is not None and not state.is_over else None
    if out is None and game.get("laid_down") is not None:
        problems.append("melds laid down while nobody has gone out")
    if out is not None and laid != Counter(str(c) for c in state.hands[out]):
        problems.append(f"laid down {sorted(laid)}, not the hand of seat {out}, who went out")
    if seat is not None and own != Counter(str(c) for c in state.hands[seat]):
        problems.append(f"seat {seat}'s hand is {sorted(own)}, not its own")
    top = str(state.discard[-1]) if state.discard else None
    if game["discard_top"] != top:
        problems.append(f"discard_top {game['discard_top']} but the pile's top is {top}")
    if game["stock_count"] != len(state.stock):
        problems.append("the stock count is wrong")
    if len(game["results"]) != len(state.results):
        problems.append(f"{len(game['results'])} rounds listed, {len(state.results)} ended")
    revealed = state.results[-1].to_dict() if state.results else None
    if game["last_result"] != revealed:
        problems.append("last_result is not the reveal of the last ended round")
    for event in frame["events"]:
        if "card" not in event:
            continue
        if event["kind"] == "draw" and event["source"] == "stock" and event["seat"] != seat:
            problems.append(f"another seat's stock draw {event}")
        elif event["kind"] not in ("draw", "discard", "go_out"):
            problems.append(f"a card in a {event['kind']} event")
    return problems


def authoritative_states(
    players: int, state_dict: dict[str, Any], log: list[Any], start: int
) -> dict[int, GameState]:
    """version -> the full game state at that version, rebuilt from the seed and the action log."""
    final = GameState.from_dict(state_dict)
    state = new_game(players, final.options, final.seed)
    states = {start: state}
    for k, action in enumerate(log, start=1):
        state, _ = apply(state, action.seat, action_from_dict(action.action))
        states[start + k] = state
    assert state == final, "the action log does not replay to the stored state"
    return states


async def play_to_the_end(table: Table, watchers: list[Client], max_moves: int = 3000) -> int:
    """Seats play from their own views, one move at a time; every socket sees every version."""
    everyone = [*table.clients, *watchers]
    for _ in range(max_moves):
        state = table.clients[0].state
        assert state is not None
        if state["room"]["status"] == "finished":
            return int(state["version"])
        seat = state["game"]["turn"]
        mover = table.clients[seat]
        view = (await mover.wait_version(state["version"]))["game"]
        answer = await mover.act(choose_from_view(view), version=state["version"])
        assert answer["type"] == "ack", answer
        for client in everyone:
            await client.wait_version(answer["version"])
    raise AssertionError("the game did not end")


@pytest.mark.slow
async def test_no_frame_reveals_hands_stock_or_seed(live: LiveServer) -> None:
    table = await open_table(live, people=4)
    assert table.game_id is not None
    spectator = await Client.connect(live.base, table.code)
    await spectator.hello()
    second_tab = await Client.connect(live.base, table.code)
    assert (await second_tab.hello(table.tokens[1]))["seat"] == 1
    start_version = table.clients[0].state["version"]  # type: ignore[index]
    final_version = await play_to_the_end(table, [spectator, second_tab])

    loaded = await load_game_state(live.store, table.game_id)
    assert loaded is not None and loaded[0] == final_version
    log = await list_actions(live.store, table.game_id)
    states = authoritative_states(4, loaded[1], log, start_version)
    seed = states[start_version].seed
    assert states[final_version].is_over

    problems: list[str] = []
    recorded = [(seat, c) for seat, c in enumerate(table.clients)] + [(1, second_tab), (None, spectator)]
    checked: dict[int, set[int]] = {}  # socket -> the versions of its frames checked
    for number, (seat, client) in enumerate(recorded):
        checked[number] = set()
        for raw in client.raw:
            if str(seed) in raw or '"seed"' in raw:
                problems.append(f"seat {seat}: the seed in {raw[:120]}")
            frame = json.loads(raw)
            if frame["type"] != "state" or frame["game"] is None:
                continue
            state = states[frame["version"]]
            expected = json.loads(json.dumps(asdict(view_for(state, seat))))
            if frame["game"] != expected:
                problems.append(f"seat {seat} v{frame['version']}: the view is not view_for(state, seat)")
            problems += [f"seat {seat} v{frame['version']}: {p}" for p in leaks(frame, seat, state)]
            checked[number].add(frame["version"])
    # Not a count fixed beforehand (a game's length varies with its deal): every socket's frames were checked
    # at every version of the game from the first move's to the last.
    played = set(range(start_version + 1, final_version + 1))
    assert len(played) > 100
    for number, versions in checked.items():
        assert played <= versions, f"socket {number}: versions {sorted(played - versions)[:10]} not checked"
    assert not problems, "\n".join(problems[:20])
    assert_not_logged(live.logs.text(), live.tokens)
    assert_not_logged(live.logs.text(), [str(seed)], "game seed")
    for client in [*table.clients, spectator, second_tab]:
        await client.close()


async def test_leak_checker_catches_a_leak(live: LiveServer) -> None:
    """The checker itself: a frame with another seat's hand, a stock draw's card, or the stock is caught."""
    table = await open_table(live, people=3)
    assert table.game_id is not None
    frame = table.clients[0].state
    assert frame is not None
    loaded = await load_game_state(live.store, table.game_id)
    assert loaded is not None
    state = GameState.from_dict(loaded[1])
    assert leaks(frame, 0, state) == []
    leaked = json.loads(json.dumps(frame))
    leaked["game"]["players"][1]["hand"] = [str(c) for c in state.hands[1]]
    assert leaks(leaked, 0, state)
    leaked = json.loads(json.dumps(frame))
    leaked["events"] = [{"kind": "draw", "seat": 1, "source": "stock", "card": str(state.stock[-1])}]
    assert leaks(leaked, 0, state)
    leaked = json.loads(json.dumps(frame))
    leaked["game"]["stock"] = [str(c) for c in state.stock]
    assert leaks(leaked, 0, state)
    assert leaks(frame, None, state)  # a seat's frame is a leak when a spectator gets it
    await table.close()


async def test_an_unfinished_game_is_not_exported_and_rest_shows_no_secrets(live: LiveServer) -> None:
    table = await open_table(live, people=2)
    assert table.game_id is not None
    for _ in range(6):  # a few moves in: a game under way
        state = table.clients[0].state
        assert state is not None
        mover = table.clients[state["game"]["turn"]]
        view = (await mover.wait_version(state["version"]))["game"]
        answer = await mover.act(choose_from_view(view), version=state["version"])
        assert answer["type"] == "ack", answer
        await table.clients[0].wait_version(answer["version"])
    loaded = await load_game_state(live.store, table.game_id)
    assert loaded is not None
    seed = str(loaded[1]["seed"])
    hands = loaded[1]["hands"]
    async with httpx.AsyncClient(base_url=live.base) as http:
        texts = []
        for path in (
            f"/api/rooms/{table.code}",
            f"/api/games/{table.game_id}",
            f"/api/rooms/{table.code}/games",
            f"/api/games/{table.game_id}/rounds/1",
        ):
            response = await http.get(path)
            assert response.status_code < 500, (path, response.status_code, response.text)
            texts.append((path, response.text))
        export = await http.get(f"/api/games/{table.game_id}/export")
    for path, text in texts:
        assert seed not in text and '"seed"' not in text, f"{path} shows the seed"
        assert not any(t in text for t in table.tokens), f"{path} shows a seat token"
        for hand in hands:
            assert json.dumps(hand) not in text, f"{path} shows a hand of the round being played"
    assert seed not in export.text
    if export.status_code == 404 and export.json().get("code") == "not_found":
        pytest.xfail("GET /api/games/{id}/export is not served (no such route yet)")
    assert export.status_code in (403, 404, 409), (export.status_code, export.text)
    assert export.json()["code"] != "internal_error"
    await table.close()
