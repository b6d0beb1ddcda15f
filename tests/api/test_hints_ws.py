"""The ``hint`` message over a real socket: only where the table allows hints, only to the player whose
turn it is (a pile before the draw, a discard after it), answered to that socket alone, and nothing about the
table changes."""

from __future__ import annotations

import asyncio

from app.engine.hints import hint
from app.store import Store

from .wsclient import Client, create_room, join_room, stored_game


async def two_players(server: str, **options: object) -> tuple[str, list[Client], int]:
    created = await create_room(server, "Ann", seats=2, options=options)
    joined = await join_room(server, created["code"], "Bob")
    clients = [await Client.connect(server, created["code"]) for _ in range(2)]
    for client, token in zip(clients, (created["token"], joined["token"]), strict=True):
        await client.hello(token)
    await clients[0].send({"type": "start"})
    started = await clients[0].until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")
    await clients[1].wait_version(started["version"])
    return created["code"], clients, started["room"]["game_id"]


async def ask(client: Client) -> dict[str, object]:
    await client.send({"type": "hint"})
    return await client.until(lambda m: m["type"] in ("hint", "error"))


async def test_the_player_to_discard_gets_the_solvers_hint_and_nobody_else_hears_it(
    server: str, store: Store
) -> None:
    code, clients, game_id = await two_players(server, hints=True)
    version, state = await stored_game(store, game_id)
    me, other = clients[state.turn], clients[1 - state.turn]
    pile = hint(state, state.turn)  # before the draw: which pile to draw from
    expected_draw = {"type": "hint", "draw": pile.source, "go_out": pile.go_out, "penalty": pile.penalty}  # type: ignore[union-attr]
    if pile.card is not None:
        expected_draw["card"] = str(pile.card)
    assert await ask(me) == expected_draw
    drawn = await me.act({"type": "draw", "source": "stock"}, version=version)
    assert drawn["type"] == "ack"
    version, state = await stored_game(store, game_id)
    answer = await ask(me)
    expected = hint(state, state.turn)
    assert answer == {
        "type": "hint",
        "card": str(expected.card),
        "go_out": expected.go_out,
        "penalty": expected.penalty,
    }
    assert (await ask(other))["code"] == "not_your_turn"
    spectator = await Client.connect(server, code)
    await spectator.hello()
    assert (await ask(spectator))["code"] == "not_seated"
    await asyncio.sleep(0.2)
    for client in (other, spectator):
        heard = [client.inbox.get_nowait() for _ in range(client.inbox.qsize())]
        assert not [m for m in heard if m["type"] == "hint"]
    assert (await stored_game(store, game_id))[0] == version  # a hint commits nothing
    assert me.state is not None and me.state["version"] == version


async def test_a_table_without_hints_refuses_them(server: str, store: Store) -> None:
    _, clients, game_id = await two_players(server)
    version, state = await stored_game(store, game_id)
    me = clients[state.turn]
    await me.act({"type": "draw", "source": "stock"}, version=version)
    answer = await ask(me)
    assert answer["type"] == "error" and answer["code"] == "illegal_action"
    assert "hints are off" in str(answer["message"])
