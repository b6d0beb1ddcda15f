"""Issue 23, items 7 and 10, on a real server (uvicorn in a thread): seat requests over REST are limited per
client address and after a decline, a request with no socket behind it goes after REQUEST_WAIT_SECONDS, and
a host who was gone gets the role back (the stranger who got it meanwhile cannot remove them)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx

from tests.api.wsclient import Client, create_room

from .conftest import serving


@contextlib.asynccontextmanager
async def server(tmp_path: Path, **settings: Any) -> AsyncIterator[str]:
    """A real server believing X-Forwarded-For from loopback: a test can speak from many addresses."""
    async with serving(
        f"sqlite+aiosqlite:///{tmp_path / 'limits.db'}", trusted_proxies="127.0.0.1", **settings
    ) as srv:
        yield srv.base


async def ask(base: str, code: str, seat: int, address: str, name: str = "Eve") -> httpx.Response:
    async with httpx.AsyncClient(base_url=base, headers={"X-Forwarded-For": address}) as http:
        return await http.post(f"/api/rooms/{code}/join", json={"name": name, "seat": seat})


async def request_of(host: Client, seat: int, wanted: Any, timeout: float = 10) -> None:
    """Wait until the host sees ``wanted`` as the seat's request."""
    await host.until(
        lambda m: m["type"] in ("state", "presence") and m["room"]["seats"][seat].get("request") == wanted,
        timeout=timeout,
    )


async def hosted(base: str, bots: int) -> tuple[str, Client]:
    created = await create_room(base, "Ann", seats=bots + 1, bots=["easy"] * bots)
    host = await Client.connect(base, created["code"])
    await host.hello(created["token"])
    return created["code"], host


async def test_rest_requests_are_limited_per_address_and_a_declined_asker_waits(tmp_path: Path) -> None:
    async with server(tmp_path, address_requests_per_10s=3, declined_cool_down_seconds=30) as base:
        code, host = await hosted(base, bots=5)
        try:
            names = ["Eve", "Fay", "Gus", "Hal", "Ivy"]  # distinct: a name may not read as another's
            answers = [
                (await ask(base, code, seat, "203.0.113.7", name=names[seat - 1])).status_code
                for seat in range(1, 6)
            ]
            assert answers == [200, 200, 200, 429, 429]
            assert (
                await ask(base, code, 4, "198.51.100.2", name="Hal")
            ).status_code == 200  # another address
            # The host declines; the asker cannot ask again at once, from any token; others can.
            await request_of(host, 1, {"name": "Eve", "approved": False})
            await host.send({"type": "decline_seat", "seat": 1})
            await request_of(host, 1, None)
            again = await ask(
                base, code, 1, "192.0.2.50", name="Jon"
            )  # a new address: only the declined one waits
            assert again.status_code == 200
            await host.send({"type": "decline_seat", "seat": 1})
            await request_of(host, 1, None)
            refused = await ask(base, code, 1, "192.0.2.50", name="Kim")
            assert refused.status_code == 429 and refused.json()["code"] == "rate_limited"
        finally:
            await host.close()


async def test_a_request_with_no_socket_behind_it_goes_after_the_wait(tmp_path: Path) -> None:
    async with server(tmp_path, request_wait_seconds=1) as base:
        code, host = await hosted(base, bots=2)
        try:
            made = await ask(base, code, 1, "203.0.113.7")
            assert made.status_code == 200
            await request_of(host, 1, {"name": "Eve", "approved": False})
            # One with its asker watching stays.
            watched = (await ask(base, code, 2, "198.51.100.2", name="Fay")).json()
            watcher = await Client.connect(base, code)
            assert (await watcher.hello(watched["token"]))["requested_seat"] == 2
            await request_of(host, 1, None, timeout=5)  # nobody behind it: gone after about a second
            await asyncio.sleep(1.5)
            assert host.state is not None
            assert host.state["room"]["seats"][2]["request"] == {"name": "Fay", "approved": False}
            await watcher.close()
        finally:
            await host.close()


async def test_a_host_who_was_gone_gets_the_role_back_and_the_stranger_cannot_remove_them(
    tmp_path: Path,
) -> None:
    async with server(tmp_path, host_away_seconds=0.5) as base:
        created = await create_room(base, "Ann", seats=3)
        code = created["code"]
        async with httpx.AsyncClient(base_url=base) as http:
            stranger_seat = (await http.post(f"/api/rooms/{code}/join", json={"name": "Mallory"})).json()
        host = await Client.connect(base, code)
        await host.hello(created["token"])
        stranger = await Client.connect(base, code)
        await stranger.hello(stranger_seat["token"])
        try:
            await host.close()  # the host steps away: the role passes to the stranger
            await stranger.until(lambda m: m["type"] == "state" and m["room"]["host_seat"] == 1, timeout=10)
            await stranger.send({"type": "remove_seat", "seat": 0})
            error = await stranger.next("error")
            assert error["code"] == "not_allowed"
            await stranger.send({"type": "set_options", "seats": 2})  # acting host: other commands work
            await stranger.until(lambda m: m["type"] == "state" and m["room"]["seat_count"] == 2)
            host = await Client.connect(base, code)  # back: the role returns
            await host.hello(created["token"])
            await host.until(lambda m: m["type"] == "state" and m["room"]["host_seat"] == 0, timeout=10)
            await stranger.send({"type": "remove_seat", "seat": 0})
            assert (await stranger.next("error"))["code"] == "not_host"
            assert host.state is not None and [s["name"] for s in host.state["room"]["seats"]] == [
                "Ann",
                "Mallory",
            ]
        finally:
            await host.close()
            await stranger.close()
