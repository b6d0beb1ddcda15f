"""Over real sockets: the host hands the host role over; the room's public info and every tab follow it."""

from __future__ import annotations

import httpx

from .wsclient import Client, create_room, join_room


async def test_the_host_role_is_handed_over_and_kept(server: str) -> None:
    created = await create_room(server, "Ann", seats=3, bots=["easy"])
    code = created["code"]
    joined = await join_room(server, code, "Bob")
    ann, bob = await Client.connect(server, code), await Client.connect(server, code)
    assert (await ann.hello(created["token"]))["you_are_host"] is True
    assert (await bob.hello(joined["token"]))["you_are_host"] is False

    await bob.send({"type": "make_host", "seat": 2})
    assert (await bob.next("error"))["code"] == "not_host"
    await ann.send({"type": "make_host", "seat": 1})  # the bot's seat
    assert (await ann.next("error"))["code"] == "not_allowed"
    await ann.send({"type": "make_host", "seat": 2})
    for client in (ann, bob):
        await client.until(lambda m: m["type"] == "state" and m["room"]["host_seat"] == 2)
    async with httpx.AsyncClient(base_url=server) as http:
        assert (await http.get(f"/api/rooms/{code}")).json()["host_seat"] == 2
    again = await Client.connect(server, code)
    assert (await again.hello(joined["token"]))["you_are_host"] is True

    await ann.send({"type": "start"})
    assert (await ann.next("error"))["code"] == "not_host"
    await bob.send({"type": "start"})
    await bob.until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")
    for client in (ann, bob, again):
        await client.close()
