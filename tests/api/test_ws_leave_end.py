"""Over real sockets: a person leaves the table (a bot plays on, the host role passes); the host ends a game
for everyone (recorded as ended, never in the standings)."""

from __future__ import annotations

from typing import Any

import httpx

from .wsclient import Client, create_room, join_room


async def test_the_host_leaves_then_the_new_host_ends_the_game(server: str) -> None:
    created = await create_room(server, "Ann", seats=3, bots=["easy"])
    code = created["code"]
    joined = await join_room(server, code, "Bob")
    ann, bob = await Client.connect(server, code), await Client.connect(server, code)
    await ann.hello(created["token"])
    await bob.hello(joined["token"])
    await ann.send({"type": "start"})
    await bob.until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")

    await bob.send({"type": "end_game"})
    assert (await bob.next("error"))["code"] == "not_host"
    await ann.send({"type": "leave"})
    welcome = await ann.next("welcome")
    assert welcome["seat"] is None and welcome["you_are_host"] is False
    assert welcome["former_seat"] == 0  # hers to take back without asking (her page says so)
    state = await bob.until(lambda m: m["type"] == "state" and m["room"]["host_seat"] == 2)
    seat = state["room"]["seats"][0]
    assert seat["bot"] is True and seat["name"] == "Ann" and state["room"]["status"] == "playing"
    await ann.send({"type": "leave"})
    assert (await ann.next("error"))["code"] == "not_seated"
    again = await Client.connect(server, code)
    hello = await again.hello(created["token"])
    assert (
        hello["seat"] is None and hello["former_seat"] == 0
    )  # Ann's token now watches; still her seat to take
    # Taking it back: no name needed and no host's answer: hers at once if nobody has moved yet this round,
    # else approved already and hers when the round (here: the game, ended below) ends.
    await again.send({"type": "request_seat", "seat": 0})

    def taken_back(m: dict[str, Any]) -> bool:
        seat = m["room"]["seats"][0]
        return not seat["bot"] or bool((seat.get("request") or {}).get("approved"))

    back = await bob.until(lambda m: m["type"] == "state" and taken_back(m))
    assert back["room"]["host_seat"] == 2

    await bob.send({"type": "end_game"})
    ended = await bob.until(lambda m: m["type"] == "state" and m["room"]["status"] == "lobby")
    assert ended["game"] is None and ended["room"]["host_seat"] == 2

    await bob.send({"type": "end_game"})
    assert (await bob.next("error"))["code"] == "wrong_status"
    async with httpx.AsyncClient(base_url=server) as http:
        room = (await http.get(f"/api/rooms/{code}")).json()
        assert room["status"] == "lobby" and room["game"]["status"] == "ended"
        assert not room["seats"][0]["bot"] and room["seats"][0]["name"] == "Ann"  # hers again
        (game,) = (await http.get(f"/api/rooms/{code}/games")).json()["items"]
        assert game["status"] == "ended" and game["winners"] == [] and game["finished_at"] is not None
        replay = await http.get(f"/api/games/{game['id']}/replay")
        assert replay.json()["code"] == "game_not_finished"
        assert (await http.get("/api/players/Bob")).status_code == 404  # in nobody's standings
    await bob.send({"type": "start"})  # the next game, at the same table
    await bob.until(lambda m: m["type"] == "state" and m["room"]["game_number"] == 2)
    for client in (ann, bob, again):
        await client.close()


async def test_the_only_person_cannot_leave(server: str) -> None:
    created = await create_room(server, "Ann", seats=2, bots=["easy"])
    ann = await Client.connect(server, created["code"])
    await ann.hello(created["token"])
    await ann.send({"type": "leave"})
    error = await ann.next("error")
    assert error["code"] == "not_allowed" and "only person" in error["message"]
    await ann.send({"type": "resync"})
    state = await ann.next("state")
    assert state["room"]["seats"][0]["bot"] is False and state["room"]["host_seat"] == 0
    await ann.close()
