"""Over real sockets: the turn deadline in every state, a seat handed to a bot, and taking it back."""

from __future__ import annotations

from datetime import datetime, timedelta

import httpx

from .wsclient import Client, create_room, join_room


def when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


async def test_turn_deadline_and_a_seat_handed_to_a_bot_then_taken_back(sqlite_server: str) -> None:
    server = sqlite_server
    created = await create_room(server, "Ann", seats=2, options={"turn_timer": 60})
    code = created["code"]
    joined = await join_room(server, code, "Bob")
    ann, bob = await Client.connect(server, code), await Client.connect(server, code)
    await ann.hello(created["token"])
    await bob.hello(joined["token"])
    assert ann.state is not None and ann.state["room"]["turn_deadline"] is None  # lobby: no turn
    await ann.send({"type": "start"})
    started = await ann.until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")
    room = started["room"]
    left = when(room["turn_deadline"]) - when(room["server_time"])
    assert timedelta(seconds=59) < left <= timedelta(seconds=60)
    assert "turn_deadline" not in started["game"]

    # Bob's seat goes to a bot: his tab now watches; his token no longer opens the seat.
    await ann.send({"type": "bot_seat", "seat": 1, "level": "easy"})
    assert (await bob.next("welcome")) == {
        "type": "welcome",
        "room": code,
        "seat": None,
        "you_are_host": False,
    }
    state = await bob.until(lambda m: m["type"] == "state" and m["room"]["seats"][1]["bot"])
    assert state["room"]["seats"][1]["bot_level"] == "easy" and state["game"]["hand"] is None
    again = await Client.connect(server, code)
    await again.send({"type": "hello", "token": joined["token"]})
    assert (await again.next("error"))["code"] == "bad_token"

    # Bob takes a bot's seat back once the game is over or a round is dealt; here, at once if no move yet.
    async with httpx.AsyncClient(base_url=server) as http:
        response = await http.post(f"/api/rooms/{code}/join", json={"name": "Bob", "seat": 1})
    assert response.status_code in (200, 400)
    if response.status_code == 200:
        token = response.json()["token"]
        back = await Client.connect(server, code)
        assert (await back.hello(token))["seat"] == 1
    else:
        assert response.json()["code"] == "wrong_status"  # the bot moved first: a round is under way
    for client in (ann, bob, again):
        await client.close()
