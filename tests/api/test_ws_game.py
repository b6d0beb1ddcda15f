"""A whole game over real WebSockets (SQLite and PostgreSQL), and every way a client can get it wrong."""

from __future__ import annotations

import asyncio
import json

import pytest

from app.engine import Action, GameState, action_from_dict, replay
from app.store import Store
from tests.reads import list_actions, list_round_scores

from .wsclient import Client, create_room, join_room, pick_move, stored_game

HIDDEN_KEYS = ("stock", "seed", "hands", "first_dealer", "reshuffles")


async def seat_three(server: str) -> tuple[str, list[str]]:
    created = await create_room(server, "Ann", seats=3)
    tokens = [created["token"]]
    for name in ("Bob", "Cat"):
        joined = await join_room(server, created["code"], name)
        assert joined["spectator"] is False
        tokens.append(joined["token"])
    return created["code"], tokens


async def start_three(server: str) -> tuple[str, list[str], list[Client], int]:
    code, tokens = await seat_three(server)
    clients = [await Client.connect(server, code) for _ in tokens]
    for seat, (client, token) in enumerate(zip(clients, tokens, strict=True)):
        welcome = await client.hello(token)
        assert welcome == {"type": "welcome", "room": code, "seat": seat, "you_are_host": seat == 0}
    await clients[0].send({"type": "start"})
    started = await clients[0].until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")
    for client in clients:
        await client.wait_version(started["version"])
    return code, tokens, clients, started["room"]["game_id"]


async def play_one(clients: list[Client], store: Store, game_id: int) -> tuple[GameState, dict[str, object]]:
    """The seat to act plays what a bot would; checks the ack came after the commit."""
    version, state = await stored_game(store, game_id)
    assert clients[0].state is not None
    await clients[0].wait_version(version)
    move = pick_move(state)
    answer = await clients[state.turn].act(move, version=version)
    assert answer == {"type": "ack", "id": answer["id"], "version": version + 1}, answer
    committed, after = await stored_game(store, game_id)
    assert committed == version + 1  # acknowledged only after the commit
    return after, move


@pytest.mark.slow
async def test_whole_game_three_players_and_a_spectator(server: str, store: Store) -> None:
    code, tokens, clients, game_id = await start_three(server)
    spectator = await Client.connect(server, code)
    assert (await spectator.hello()) == {"type": "welcome", "room": code, "seat": None, "you_are_host": False}
    log: list[tuple[int, Action]] = []
    acked = 0
    while True:
        version, state = await stored_game(store, game_id)
        if state.is_over:
            break
        seat = state.turn
        after, move = await play_one(clients, store, game_id)
        log.append((seat, action_from_dict(move)))
        acked += 1
    final_version = version
    for client in [*clients, spectator]:
        last = await client.wait_version(final_version)
        assert last["room"]["status"] == "finished"
        assert last["game"]["phase"] == "game_over"
        assert [r["round"] for r in last["game"]["results"]] == list(range(1, 12))
        assert last["game"]["last_result"]["round"] == 11  # the reveal of the last round only
        assert len(last["game"]["last_result"]["hands"]) == len(clients)
    # Every acknowledged move is in the log, in order, and the log replays to the stored state.
    actions = await list_actions(store, game_id)
    assert len(actions) == acked == state.moves
    assert [(a.seat, action_from_dict(a.action)) for a in actions] == log
    assert replay(3, state.options, state.seed, log) == state
    scores = await list_round_scores(store, game_id)
    assert len(scores) == 33
    assert [sum(s.penalty for s in scores if s.seat == seat) for seat in range(3)] == state.totals()
    # Nothing secret ever left the server; the spectator never saw a hand; seats saw only their own.
    for client in [*clients, spectator]:
        for raw in client.raw:
            message = json.loads(raw)
            if message["type"] != "state" or message["game"] is None:
                continue
            assert not any(key in message["game"] for key in HIDDEN_KEYS)
            assert str(state.seed) not in raw
    for message in spectator.received:
        if message["type"] == "state" and message["game"] is not None:
            assert message["game"]["hand"] is None and message["game"]["seat"] is None
            for event in message["events"]:
                assert not (event["kind"] == "draw" and event["source"] == "stock" and "card" in event)
    for seat, client in enumerate(clients):
        for message in client.received:
            if message["type"] == "state" and message["game"] is not None:
                assert message["game"]["seat"] == seat
                for event in message["events"]:
                    if event["kind"] == "draw" and event["source"] == "stock":
                        assert ("card" in event) == (event["seat"] == seat)
    # Presence: everyone connected; the spectator counted.
    assert clients[0].state is not None
    assert [s["connected"] for s in clients[0].state["room"]["seats"]] == [True, True, True]
    assert clients[0].state["room"]["spectators"] == 1
    for client in [*clients, spectator]:
        await client.close()


async def test_a_client_that_takes_acks_in_the_state_gets_one_frame_fewer_per_move(
    server: str, store: Store
) -> None:
    """Hello ``"acks": "in_state"``: the mover's own state carries its ack, committed first, and no ack
    message comes; a bad value is refused clearly, and the socket may say hello again."""
    code, tokens = await seat_three(server)
    clients = [await Client.connect(server, code) for _ in tokens]
    await clients[0].send({"type": "hello", "token": tokens[0], "acks": "in-state"})
    assert (await clients[0].next("error")) == {
        "type": "error",
        "code": "bad_message",
        "message": "bad hello message: acks: Input should be 'frame' or 'in_state'",
    }
    for client, token in zip(clients, tokens, strict=True):
        await client.send({"type": "hello", "token": token, "acks": "in_state"})
        await client.next("welcome")
        await client.next("state")
    await clients[0].send({"type": "start"})
    started = await clients[0].until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")
    game_id = started["room"]["game_id"]
    for _ in range(6):
        version, state = await stored_game(store, game_id)
        for client in clients:
            await client.wait_version(version)
        mover, frames = clients[state.turn], len(clients[state.turn].raw)
        action_id = f"in-state-{version}"
        await mover.send({"type": "action", "id": action_id, "version": version, "action": pick_move(state)})
        answer = await mover.until(lambda m, a=action_id: m.get("ack") == a or m.get("id") == a)  # type: ignore[misc]
        assert answer["type"] == "state" and answer["version"] == version + 1, answer
        assert (await stored_game(store, game_id))[0] == version + 1  # acknowledged only after the commit
        kinds = [json.loads(raw)["type"] for raw in mover.raw[frames:]]
        assert [k for k in kinds if k != "presence"] == ["state"], kinds  # presence news may come too
    for client in clients:
        assert "ack" not in [m["type"] for m in client.received]
        acked = [m["ack"] for m in client.received if m["type"] == "state" and "ack" in m]
        assert acked and all(a.startswith("in-state-") for a in acked)
    await asyncio.gather(*(client.close() for client in clients))


async def test_reconnect_mid_turn_gets_the_seat_and_full_state_back(server: str, store: Store) -> None:
    code, tokens, clients, game_id = await start_three(server)
    version, state = await stored_game(store, game_id)
    seat = state.turn
    answer = await clients[seat].act({"type": "draw", "source": "stock"}, version=version)
    assert answer["type"] == "ack"
    await clients[seat].close()
    # The others see the seat go away (same version: presence does not move it).
    other = clients[(seat + 1) % 3]
    away = await other.until(lambda m: m["type"] == "presence" and not m["room"]["seats"][seat]["connected"])
    assert away["version"] == version + 1
    again = await Client.connect(server, code)
    welcome = await again.hello(tokens[seat])
    assert welcome["seat"] == seat
    assert again.state is not None
    view = again.state["game"]
    _, now = await stored_game(store, game_id)
    assert again.state["version"] == version + 1
    assert view["phase"] == "discard" and view["turn"] == seat and view["seat"] == seat
    assert view["hand"] == [str(c) for c in now.hands[seat]]
    assert view["drawn"] == str(now.drawn)
    answer = await again.act({"type": "discard", "card": view["hand"][0]}, version=version + 1)
    assert answer == {"type": "ack", "id": answer["id"], "version": version + 2}
    back = await other.until(lambda m: m["type"] == "state" and m["version"] == version + 2)
    assert back["room"]["seats"][seat]["connected"]


async def test_duplicate_action_id_is_acknowledged_again_and_applied_once(server: str, store: Store) -> None:
    code, tokens, clients, game_id = await start_three(server)
    version, state = await stored_game(store, game_id)
    client = clients[state.turn]
    first = await client.act({"type": "draw", "source": "stock"}, version=version, action_id="same-id")
    second = await client.act({"type": "draw", "source": "stock"}, version=version, action_id="same-id")
    assert first == second == {"type": "ack", "id": "same-id", "version": version + 1}
    # Even a different move under the same id is not applied: the id names the move already made.
    third = await client.act({"type": "draw", "source": "discard"}, action_id="same-id")
    assert third == first
    assert len(await list_actions(store, game_id)) == 1
    assert (await stored_game(store, game_id))[0] == version + 1
    # A second tab of the same seat retrying the same id gets the same answer.
    tab = await Client.connect(server, code)
    await tab.hello(tokens[state.turn])
    assert (await tab.act({"type": "draw", "source": "stock"}, action_id="same-id")) == first
    # Another seat cannot reuse it.
    other = clients[(state.turn + 1) % 3]
    refused = await other.act({"type": "draw", "source": "stock"}, action_id="same-id")
    assert refused["type"] == "error" and refused["code"] == "bad_message"


async def test_stale_version_is_refused_and_changes_nothing(server: str, store: Store) -> None:
    code, tokens, clients, game_id = await start_three(server)
    version, state = await stored_game(store, game_id)
    client = clients[state.turn]
    error = await client.act({"type": "draw", "source": "stock"}, version=version - 1, action_id="old")
    assert error["type"] == "error" and error["code"] == "stale_version" and error["id"] == "old"
    fresh = await client.next("state")
    assert fresh["version"] == version
    assert await stored_game(store, game_id) == (version, state)
    assert await list_actions(store, game_id) == []
    # The same move against the current version goes through.
    assert (await client.act({"type": "draw", "source": "stock"}, version=version))["type"] == "ack"


async def test_out_of_turn_and_illegal_moves_get_engine_codes(server: str, store: Store) -> None:
    code, tokens, clients, game_id = await start_three(server)
    version, state = await stored_game(store, game_id)
    waiting = clients[(state.turn + 1) % 3]
    error = await waiting.act({"type": "draw", "source": "stock"})
    assert (error["code"], error["type"]) == ("not_your_turn", "error")
    mover = clients[state.turn]
    assert (await mover.act({"type": "discard", "card": "AS"}))["code"] == "wrong_phase"
    assert (await mover.act({"type": "draw", "source": "stock"}))["type"] == "ack"
    hand = {str(c) for c in state.hands[state.turn]}
    missing = next(
        c for c in ("AS", "AH", "AD", "AC", "2S", "2H") if c not in hand and c != str(state.stock[-1])
    )
    assert (await mover.act({"type": "discard", "card": missing}))["code"] == "card_not_in_hand"
    assert (await mover.act({"type": "discard", "card": "ZZ"}))["code"] == "bad_card"
    assert len(await list_actions(store, game_id)) == 1


async def test_bad_token_then_watching(server: str) -> None:
    code, tokens = await seat_three(server)
    other, _ = await seat_three(server)
    client = await Client.connect(server, code)
    await client.send({"type": "hello", "token": "not-a-token"})
    assert (await client.next("error"))["code"] == "bad_token"
    # A token of another room is just as bad.
    other_room = await create_room(server, "Zed")
    await client.send({"type": "hello", "token": other_room["token"]})
    assert (await client.next("error"))["code"] == "bad_token"
    # Nothing but hello before hello.
    await client.send({"type": "action", "id": "x", "action": {"type": "draw", "source": "stock"}})
    assert (await client.next("error"))["code"] == "bad_message"
    assert (await client.hello())["seat"] is None
    await client.send({"type": "hello"})
    assert (await client.next("error"))["code"] == "bad_message"
    await client.send({"type": "chat", "text": "hi"})
    assert (await client.next("error"))["code"] == "not_seated"
    await client.send({"type": "start"})
    assert (await client.next("error"))["code"] == "not_seated"


async def test_unknown_room_closes_with_4404(server: str) -> None:
    client = await Client.connect(server, "NOSUCH23")
    error = await client.next("error")
    assert error["code"] == "room_not_found"
    await asyncio.wait_for(client.closed.wait(), 5)
    assert client.ws.close_code == 4404


async def test_garbage_never_hurts_the_room(server: str, store: Store) -> None:
    code, tokens, clients, game_id = await start_three(server)
    version, state = await stored_game(store, game_id)
    client = clients[state.turn]
    cases: list[tuple[str | bytes, str]] = [
        ("not json", "bad_message"),
        ("[1, 2]", "bad_message"),
        ('{"no": "type"}', "bad_message"),
        ('{"type": "dance"}', "unknown_type"),
        ('{"type": 7}', "bad_message"),
        ('{"type": "action", "id": "x"}', "bad_message"),
        ('{"type": "action", "id": "x", "action": {"type": "draw", "source": "sky"}}', "bad_message"),
        (
            '{"type": "action", "id": "x", "version": "1", "action": {"type": "draw", "source": "stock"}}',
            "bad_message",
        ),
        ('{"type": "action", "id": "", "action": {"type": "draw", "source": "stock"}}', "bad_message"),
        (b"\x00\x01binary", "bad_message"),
        ("[" * 4000 + "]" * 4000, "bad_message"),
        ('{"type": "chat", "text": ' + "[" * 3000 + "]" * 3000 + "}", "bad_message"),
        ('{"type": "action", "id": "a b", "action": {"type": "draw", "source": "stock"}}', "bad_message"),
        ('{"type": "action", "id": "\\ud800", "action": {"type": "draw", "source": "stock"}}', "bad_message"),
        ('{"type": "chat", "text": "\\udfff"}', "bad_message"),
        ('{"type": "action", "id": "c", "action": {"type": "discard", "card": "\\udfff"}}', "bad_message"),
        (json.dumps({"type": "chat", "text": "x" * 9000}), "too_large"),
        (json.dumps({"type": "chat", "text": "   "}), "bad_message"),
        (json.dumps({"type": "chat", "text": "bad\x07bell"}), "bad_message"),
    ]
    for raw, code_expected in cases:
        await client.ws.send(raw)
        error = await client.next("error")
        assert error["code"] == code_expected, (raw, error)
    await client.send({"type": "ping"})
    assert (await client.next("pong")) == {"type": "pong"}
    await client.send({"type": "resync"})
    assert (await client.next("state"))["version"] == version
    assert await stored_game(store, game_id) == (version, state)
    assert (await client.act({"type": "draw", "source": "stock"}, version=version))["type"] == "ack"
    await client.send({"type": "chat", "text": "  good luck  "})
    chat = await clients[0].next("chat")
    assert (chat["seat"], chat["name"], chat["text"]) == (
        state.turn,
        ["Ann", "Bob", "Cat"][state.turn],
        "good luck",
    )


async def test_shutdown_tells_clients_to_reconnect(sqlite_url: str) -> None:
    from .wsclient import running_server, server_settings

    with running_server(server_settings(sqlite_url)) as base:
        created = await create_room(base, "Ann", seats=2)
        client = await Client.connect(base, created["code"])
        await client.hello(created["token"])
    await asyncio.wait_for(client.closed.wait(), 10)
    assert client.received[-1] == {"type": "restarting"}
    assert client.ws.close_code == 1012


async def test_origins_can_be_restricted(sqlite_url: str) -> None:
    import websockets

    from .wsclient import running_server, server_settings

    settings = server_settings(sqlite_url, allowed_origins="https://cards.example.org")
    with running_server(settings) as base:
        created = await create_room(base, "Ann", seats=2)
        url = base.replace("http", "ws", 1) + f"/ws/{created['code']}"
        good = await Client.connect(base, created["code"], origin="https://cards.example.org")
        assert (await good.hello(created["token"]))["seat"] == 0
        await good.close()
        bad = None
        try:
            bad = await websockets.connect(url, origin="https://evil.example")  # type: ignore[arg-type]
            await asyncio.wait_for(bad.recv(), 5)
            raise AssertionError("a foreign origin was served")
        except websockets.InvalidStatus as exc:
            assert exc.response.status_code == 403
        except websockets.ConnectionClosed as exc:
            assert exc.rcvd is not None and exc.rcvd.code == 1008
        finally:
            if bad is not None:
                await bad.close()
