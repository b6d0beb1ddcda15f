"""Invisible or bot-like names are refused over REST (create and join), invisible chat lines over the
socket, on a real server; and sockets from other sites are refused when only PUBLIC_BASE_URL is set."""

from __future__ import annotations

import asyncio

import httpx
import websockets

from app.config import Settings
from tests.api.wsclient import Client, create_room

from .conftest import LiveServer, open_table, serving

# Each refused name and its code: invisible ones are bad requests, bots' names have a code of their own.
REFUSED_NAMES = {
    "\u3164": "bad_request",
    "\u200c\u200c": "bad_request",
    "\u0301\u0301": "bad_request",
    "Bot 2": "name_for_bots",
    "ｂｏｔ　７": "name_for_bots",
}


async def test_invisible_and_bot_names_are_refused(live: LiveServer) -> None:
    code = (await create_room(live.base, "Ann", seats=3))["code"]
    async with httpx.AsyncClient(base_url=live.base) as http:
        for name, code_of_name in REFUSED_NAMES.items():
            created = await http.post("/api/rooms", json={"name": name, "seats": 2})
            joined = await http.post(f"/api/rooms/{code}/join", json={"name": name})
            for response in (created, joined):
                assert response.status_code == 422, (name, response.text)
                assert response.json()["code"] == code_of_name, (name, response.text)
        seats = (await http.get(f"/api/rooms/{code}")).json()["seats"]
    assert [s["name"] for s in seats if s["name"]] == ["Ann"]


async def test_invisible_chat_lines_are_refused(live: LiveServer) -> None:
    table = await open_table(live, 2, start=False)
    try:
        sender, other = table.clients
        for text in ("\u3164\u3164", "\u200c", "\u0301"):
            await sender.send({"type": "chat", "text": text})
            assert (await sender.next("error"))["code"] == "bad_message"
        await sender.send({"type": "chat", "text": "hi"})
        assert (await other.next("chat"))["text"] == "hi"  # the first line the other seat gets
    finally:
        await table.close()


async def test_sockets_default_to_the_public_origin(sqlite_url: str) -> None:
    assert Settings(_env_file=None, public_base_url="https://cards.example.org/").origins == [  # type: ignore[call-arg]
        "https://cards.example.org"
    ]
    async with serving(sqlite_url, public_base_url="https://cards.example.org") as live:
        created = await create_room(live.base, "Ann", seats=2)
        good = await Client.connect(live.base, created["code"], origin="https://cards.example.org")
        assert (await good.hello(created["token"]))["seat"] == 0
        await good.close()
        url = live.base.replace("http", "ws", 1) + f"/ws/{created['code']}"
        try:
            async with websockets.connect(url, origin="https://evil.example") as bad:  # type: ignore[arg-type]
                await asyncio.wait_for(bad.recv(), 5)
            raise AssertionError("a socket from another site was served")
        except websockets.InvalidStatus as exc:
            assert exc.response.status_code == 403
