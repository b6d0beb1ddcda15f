"""Who played each seat, in the record and in the standings (issue 39, item 1; issue 37, item 3), over real
sockets: a seat the host hands to a bot counts for nobody; a seat its person leaves still counts for them
(leaving never escapes a bad score); a bot's seat a friend takes over is recorded as the bot's, then the
friend's from the round it passed; and the game's record counts the moves nobody at the table sent."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from .test_history import get, quick_move
from .wsclient import Client, create_room, join_room

pytestmark = pytest.mark.slow  # whole games over sockets


async def play_to_the_end(clients: list[Client]) -> None:
    """Each client plays its own seat from its own view (draw, go out when it can, else discard; Continue
    in the pause between rounds) until the game is over; bots and the server play the rest."""
    deadline = asyncio.get_running_loop().time() + 120
    while asyncio.get_running_loop().time() < deadline:
        for client in clients:
            state = client.state
            view = state["game"] if state else None
            if state is None or view is None:
                continue
            if view["phase"] == "game_over":
                return
            room = state["room"]
            if room["break_until"] and view["seat"] is not None and view["seat"] not in room["continued"]:
                await client.send({"type": "continue"})
                await client.wait_version(state["version"] + 1)
            elif view["turn"] == view["seat"] and view["legal"]:
                answer = await client.act(quick_move(view), version=state["version"])
                if answer["type"] == "ack":
                    await client.wait_version(answer["version"])
        await asyncio.sleep(0.005)
    raise TimeoutError("the game did not end in 120 s")


def holders(game: dict[str, Any], seat: int) -> list[tuple[int, str, bool]]:
    return [(h["from_round"], h["name"], h["bot"]) for h in game["players"][seat]["holders"]]


async def test_a_seat_handed_to_a_bot_counts_for_nobody_and_one_left_still_counts(server: str) -> None:
    created = await create_room(server, "Ann", seats=3, address="192.0.2.1")  # three friends, three homes
    code = created["code"]
    gita = await join_room(server, code, "Gita", address="192.0.2.2")
    lea = await join_room(server, code, "Lea", address="192.0.2.3")
    ann, gita_tab, lea_tab = [await Client.connect(server, code) for _ in range(3)]
    await ann.hello(created["token"])
    await gita_tab.hello(gita["token"])
    await lea_tab.hello(lea["token"])
    await ann.send({"type": "start"})
    state = await ann.until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")
    game_id = state["room"]["game_id"]
    await ann.send({"type": "bot_seat", "seat": 1, "level": "random"})  # the host hands Gita's seat over
    await ann.until(lambda m: m["type"] == "state" and m["room"]["seats"][1]["bot"])
    await lea_tab.send({"type": "leave"})  # Lea leaves of her own accord
    await ann.until(lambda m: m["type"] == "state" and m["room"]["seats"][2]["bot"])
    await play_to_the_end([ann])

    game = (await get(server, f"/api/games/{game_id}")).json()
    assert game["status"] == "finished"
    assert [(p["name"], p["bot"], p["handed_to_bot"], p["counted"]) for p in game["players"]] == [
        ("Ann", False, False, True),
        ("Gita", False, True, False),  # a bot played it from the first turn: it is not Gita's game
        ("Lea", False, False, True),  # she left: her game still counts
    ]
    assert holders(game, 0) == [(1, "Ann", False)]
    assert holders(game, 1) == [(1, "Gita", False), (1, "Gita", True)]
    assert holders(game, 2) == [(1, "Lea", False), (1, "Lea", True)]
    assert game["server_turns"][0] == 0 and game["server_turns"][1] > 0 and game["server_turns"][2] > 0
    assert (await get(server, "/api/players/Gita")).status_code == 404, "no counted game for Gita"
    assert (await get(server, "/api/players/Lea")).json()["games"] == 1
    assert (await get(server, "/api/players/Ann")).json()["games"] == 1
    listed = (await get(server, "/api/players/Gita/games")).json()["items"]
    assert [g["players"][1]["handed_to_bot"] for g in listed] == [True], "the list says so too"
    for client in (ann, gita_tab, lea_tab):
        await client.close()


async def friend_asks_for_a_bots_seat(server: str) -> tuple[str, str, Client, Client]:
    """Ann and a bot; Sam, watching, asks for the bot's seat after the first move of round 1, and Ann
    approves: it passes to him when the round ends. The code, the game's id and the two clients."""
    created = await create_room(server, "Ann", seats=2, bots=["easy"])
    code = created["code"]
    ann, sam = await Client.connect(server, code), await Client.connect(server, code)
    await ann.hello(created["token"])
    await sam.send({"type": "hello"})
    await sam.next("welcome")
    await ann.send({"type": "start"})
    state = await ann.until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")
    # A move first: a request approved before the round's first move passes at once, else at its end.
    view = state["game"]
    if view["turn"] == view["seat"]:
        await ann.act(quick_move(view), version=state["version"])
    await ann.until(lambda m: m["type"] == "state" and m["version"] > state["version"])
    await sam.send({"type": "request_seat", "seat": 1, "name": "Sam"})
    await ann.until(lambda m: m["type"] == "state" and m["room"]["seats"][1].get("request"))
    await ann.send({"type": "approve_seat", "seat": 1})
    return code, state["room"]["game_id"], ann, sam


async def test_a_bots_seat_a_friend_takes_over_is_the_bots_then_the_friends(server: str) -> None:
    _code, game_id, ann, sam = await friend_asks_for_a_bots_seat(server)
    await play_to_the_end([ann, sam])  # the seat passes to Sam when a round ends; he plays it from then

    game = (await get(server, f"/api/games/{game_id}")).json()
    assert sam.welcome is not None and sam.welcome["seat"] == 1
    took_over = holders(game, 1)
    assert took_over == [(1, "Bot 2", True), (2, "Sam", False)], "Sam from the round after the approval"
    assert game["players"][1]["name"] == "Bot 2" and not game["players"][1]["counted"]
    for client in (ann, sam):
        await client.close()
