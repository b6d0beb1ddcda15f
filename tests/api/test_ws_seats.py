"""Over real sockets: the turn deadline in every state, a seat handed to a bot, and asking for it back."""

from __future__ import annotations

import asyncio
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
        "former_seat": 1,  # his to take back without asking
    }
    state = await bob.until(lambda m: m["type"] == "state" and m["room"]["seats"][1]["bot"])
    assert state["room"]["seats"][1]["bot_level"] == "easy" and state["game"]["hand"] is None
    again = await Client.connect(server, code)
    await again.send({"type": "hello", "token": joined["token"]})
    welcome = await again.next("welcome")
    assert (
        welcome["seat"] is None and welcome["former_seat"] == 1
    )  # watching: the former player, not a bad token

    # A stranger's request over REST takes nothing; Bob asks for his seat back and needs no approval.
    async with httpx.AsyncClient(base_url=server) as http:
        response = await http.post(f"/api/rooms/{code}/join", json={"name": "Eve", "seat": 1})
        assert response.status_code == 200 and response.json()["seat"] is None
        room = (await http.get(f"/api/rooms/{code}")).json()
        assert room["seats"][1]["bot"] and room["seats"][1]["request"] == {"name": "Eve", "approved": False}
    await ann.send({"type": "decline_seat", "seat": 1})
    await ann.until(lambda m: m["type"] == "state" and "request" not in m["room"]["seats"][1])
    await again.send({"type": "request_seat", "seat": 1})
    answer = await again.next("seat_requested")
    assert answer == {"type": "seat_requested", "seat": 1}  # no new token: his own opens the seat
    state = await ann.until(
        lambda m: (
            m["type"] == "state"
            and (not m["room"]["seats"][1]["bot"] or m["room"]["seats"][1].get("request", {}).get("approved"))
        )
    )
    if not state["room"]["seats"][1]["bot"]:  # no move made yet in this round: it passed at once
        # The welcome to the seat comes with the hand-over, so before the answer to the request that
        # ``next`` skipped it for: the client keeps the latest welcome it heard.
        deadline = asyncio.get_running_loop().time() + 10
        while (again.welcome or {}).get("seat") != 1 and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.02)
        assert again.welcome is not None and again.welcome["seat"] == 1
    for client in (ann, bob, again):
        await client.close()
