"""Races: two tabs of one seat send conflicting moves at the same moment; exactly one is applied."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from app.engine import GameState, action_from_dict
from app.engine.game import replay  # the function (a submodule app.engine.replay may shadow the name)
from tests.api.wsclient import Client, stored_game
from tests.reads import list_actions

from .conftest import LiveServer, Table, open_table, serving

Message = dict[str, Any]
CLEAR_GAME_ERRORS = {"stale_version", "not_your_turn", "wrong_phase", "card_not_in_hand"}


async def race(
    tabs: tuple[Client, Client], moves: tuple[Message, Message], version: int | None
) -> tuple[Message, Message]:
    """Both tabs send their move at once; returns the answers (ack or error) in tab order."""
    ids = (f"a-{uuid.uuid4().hex}", f"b-{uuid.uuid4().hex}")
    messages = []
    for action_id, move in zip(ids, moves, strict=True):
        message: Message = {"type": "action", "id": action_id, "action": move}
        if version is not None:
            message["version"] = version
        messages.append(message)
    waits = [
        asyncio.create_task(tab.until(lambda m, i=i: m["type"] in ("ack", "error") and m.get("id") == i))
        for tab, i in zip(tabs, ids, strict=True)
    ]
    await asyncio.gather(*(tab.send(m) for tab, m in zip(tabs, messages, strict=True)))
    first, second = await asyncio.gather(*waits)
    return first, second


def two_different_cards(hand: list[str]) -> tuple[str, str]:
    first = hand[0]
    return first, next(c for c in hand if c != first)


async def check_log(srv: LiveServer, game_id: int, acked: dict[str, int], refused: set[str]) -> GameState:
    version, state = await stored_game(srv.store, game_id)
    actions = await list_actions(srv.store, game_id)
    logged = {a.client_id: a.version for a in actions if a.client_id}
    assert all(logged.get(i) == v for i, v in acked.items()), "an acknowledged move is not in the log"
    assert not refused & set(logged), "a refused move was applied"
    assert [a.seq for a in actions] == list(range(1, state.moves + 1))
    assert (
        replay(
            state.players, state.options, state.seed, [(a.seat, action_from_dict(a.action)) for a in actions]
        )
        == state
    )
    return state


async def two_tabs_of_the_seat_to_act(live: LiveServer) -> tuple[Table, int, int, Client, Client]:
    """A new table, and a second tab opened for the seat whose turn it is: (table, version, seat, a, b)."""
    table = await open_table(live)
    assert table.game_id is not None
    version, before = await stored_game(live.store, table.game_id)
    seat = before.turn
    b = await Client.connect(live.base, table.code)
    await b.hello(table.tokens[seat])
    return table, version, seat, table.clients[seat], b


async def test_two_tabs_conflicting_moves_with_one_version(live_any_db: LiveServer) -> None:
    live = live_any_db
    table = await open_table(live)
    assert table.game_id is not None
    tabs = [(client, await Client.connect(live.base, table.code)) for client in table.clients]
    for seat, (_, second) in enumerate(tabs):
        assert (await second.hello(table.tokens[seat]))["seat"] == seat
    acked: dict[str, int] = {}
    refused: set[str] = set()
    for _ in range(24):  # 12 turns: a draw race and a discard race in each
        version, before = await stored_game(live.store, table.game_id)
        seat = before.turn
        a, b = tabs[seat]
        view = (await a.wait_version(version))["game"]
        await b.wait_version(version)
        if view["phase"] == "draw":
            moves = ({"type": "draw", "source": "stock"}, {"type": "draw", "source": "discard"})
        else:
            x, y = two_different_cards(view["hand"])
            moves = ({"type": "discard", "card": x}, {"type": "discard", "card": y})
        answers = await race((a, b), moves, version)
        kinds = sorted(m["type"] for m in answers)
        assert kinds == ["ack", "error"], answers
        won = 0 if answers[0]["type"] == "ack" else 1
        lost = answers[1 - won]
        assert lost["code"] == "stale_version", lost
        assert answers[won]["version"] == version + 1
        acked[answers[won]["id"]] = answers[won]["version"]
        refused.add(lost["id"])
        after_version, after = await stored_game(live.store, table.game_id)
        assert after_version == version + 1
        # The store holds the winner's move, not the loser's.
        move = moves[won]
        if move["type"] == "discard":
            assert str(after.discard[-1]) == move["card"]
            other = moves[1 - won]["card"]
            assert other in [str(c) for c in after.hands[seat]]
        else:
            assert after.phase == "discard" and after.turn == seat
            expected = before.discard[-1] if move["source"] == "discard" else before.stock[-1]
            assert after.drawn == expected
        # The loser's tab is sent the current state and both tabs agree with the store.
        for tab in (a, b):
            state = await tab.wait_version(version + 1)
            assert state["game"]["hand"] == [str(c) for c in after.hands[seat]]
    await check_log(live, table.game_id, acked, refused)
    for pair in tabs:
        for tab in pair:
            await tab.close()


async def test_two_tabs_conflicting_moves_without_version(live: LiveServer) -> None:
    table, version, seat, a, b = await two_tabs_of_the_seat_to_act(live)
    answer = await a.act({"type": "draw", "source": "stock"}, version=version)
    assert answer["type"] == "ack"
    view = (await b.wait_version(version + 1))["game"]
    x, y = two_different_cards(view["hand"])
    answers = await race((a, b), ({"type": "discard", "card": x}, {"type": "discard", "card": y}), None)
    assert sorted(m["type"] for m in answers) == ["ack", "error"], answers
    lost = next(m for m in answers if m["type"] == "error")
    assert lost["code"] in CLEAR_GAME_ERRORS, lost
    won = next(m for m in answers if m["type"] == "ack")
    state = await check_log(live, table.game_id, {won["id"]: won["version"]}, {lost["id"]})
    assert state.moves == 2 and state.turn != seat
    await b.close()
    await table.close()


async def test_the_same_action_from_two_tabs_is_applied_once(live: LiveServer) -> None:
    table, version, seat, a, b = await two_tabs_of_the_seat_to_act(live)
    message = {
        "type": "action",
        "id": "same-id",
        "version": version,
        "action": {"type": "draw", "source": "stock"},
    }
    waits = [
        asyncio.create_task(tab.until(lambda m: m["type"] in ("ack", "error") and m.get("id") == "same-id"))
        for tab in (a, b)
    ]
    await asyncio.gather(a.send(message), b.send(message))
    answers = await asyncio.gather(*waits)
    assert answers == [{"type": "ack", "id": "same-id", "version": version + 1}] * 2, answers
    state = await check_log(live, table.game_id, {"same-id": version + 1}, set())
    assert state.moves == 1
    await b.close()
    await table.close()


async def test_tabs_on_two_server_processes_sharing_one_database(db_url: str) -> None:
    """The store is the truth: two servers on one database never both apply moves made at one version."""
    async with serving(db_url) as one, serving(db_url) as two:
        for _ in range(4):  # a new table each time: both servers hold its current state when the race starts
            table = await open_table(one)
            assert table.game_id is not None
            version, before = await stored_game(one.store, table.game_id)
            seat = before.turn
            a = table.clients[seat]
            b = await Client.connect(two.base, table.code)
            await b.hello(table.tokens[seat])
            assert b.state is not None and b.state["version"] == version
            moves = ({"type": "draw", "source": "stock"}, {"type": "draw", "source": "discard"})
            answers = await race((a, b), moves, version)
            assert sorted(m["type"] for m in answers) == ["ack", "error"], answers
            lost = next(m for m in answers if m["type"] == "error")
            won = next(m for m in answers if m["type"] == "ack")
            assert lost["code"] == "stale_version", lost
            state = await check_log(one, table.game_id, {won["id"]: won["version"]}, {lost["id"]})
            assert state.moves == 1
            await b.close()
            await table.close()
