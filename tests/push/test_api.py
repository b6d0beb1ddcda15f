"""The REST routes of Web Push on a real server: the key to subscribe with, a seat's subscription switched on
(checked: only endpoints the server may reach, keys of the right size, a seated token) and off, and a push
to it from another process on the same database, signed with the same kept key."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.config import Settings
from app.push import Pusher
from app.rooms import hash_token
from app.store import Store
from tests.api.wsclient import running_server, server_settings
from tests.conftest import at_head
from tests.push_service import PushService

DEVICE = "dev-4f9a2c71"


@pytest.fixture
def server(sqlite_url: str, sqlite_at_head: Path, service: PushService) -> Iterator[str]:
    settings = server_settings(
        at_head(sqlite_url, sqlite_at_head),
        push_allowed_hosts=f"127.0.0.1:{service.port}",
        max_push_changes_per_minute=600,  # (its limit is tested on its own)
    )
    with running_server(settings) as base:
        yield base


def on(token: str, subscription: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"token": token, "device": DEVICE, "subscription": subscription, **extra}


async def test_a_seat_subscribes_and_is_notified_with_the_servers_key(
    server: str, sqlite_url: str, service: PushService
) -> None:
    async with httpx.AsyncClient(base_url=server) as http:
        key = (await http.get("/api/push/key")).json()["key"]
        point = base64.urlsafe_b64decode(key + "=")
        assert len(point) == 65 and point[0] == 4
        assert (await http.get("/api/push/key")).json()["key"] == key
        room = (await http.post("/api/rooms", json={"name": "Sara"})).json()
        code, token = room["code"], room["token"]
        answer = await http.post(
            f"/api/rooms/{code.lower()}/push", json=on(token, service.subscription("sara"), lang="fa")
        )
        assert answer.status_code == 204, answer.text

        store = Store(sqlite_url)  # another process on the same database
        pusher = Pusher(store, Settings(_env_file=None, push_allowed_hosts=f"127.0.0.1:{service.port}"))  # type: ignore[call-arg]
        pusher.start()
        try:
            pusher.turn(code, hash_token(token), "t1", "Sara")
            await pusher.drain()
            (pushed,) = service.at("sara")
            assert pushed.key == key and pushed.payload["title"] == "نوبت شماست، میز Sara"
            off = await http.post(f"/api/rooms/{code}/push/off", json={"token": token, "device": DEVICE})
            assert off.status_code == 204
            pusher.turn(code, hash_token(token), "t2", "Sara")
            await pusher.drain()
            assert len(service.at("sara")) == 1
            again = await http.post(f"/api/rooms/{code}/push/off", json={"token": token, "device": DEVICE})
            assert again.status_code == 204  # nothing left to switch off: no error
        finally:
            await pusher.close()
            await store.close()


async def test_subscriptions_the_server_would_not_push_to_are_refused(
    server: str, service: PushService
) -> None:
    good = service.subscription("good")
    async with httpx.AsyncClient(base_url=server) as http:
        room = (await http.post("/api/rooms", json={"name": "Sara"})).json()
        code, token = room["code"], room["token"]

        async def refused(
            subscription: dict[str, Any], code_: str = code, token_: str = token
        ) -> tuple[int, str]:
            answer = await http.post(f"/api/rooms/{code_}/push", json=on(token_, subscription))
            return answer.status_code, answer.json()["code"]

        for endpoint in (
            "http://127.0.0.1:5432/",
            "https://10.0.0.1/push",
            "https://[::1]/push",
            "https://169.254.169.254/latest/meta-data/",
            f"http://localhost:{service.port}/push/good",  # the allowed service, by a name not allowed
            f"http://127.0.0.1:{service.port + 1}/push/good",  # another port of the allowed address
            "https://push.example.org/" + "x" * 1100,
        ):
            assert await refused({**good, "endpoint": endpoint}) == (422, "bad_subscription"), endpoint
        for keys in (
            {**good["keys"], "p256dh": good["keys"]["p256dh"][:-2]},
            {**good["keys"], "auth": "AAAA"},
        ):
            assert await refused({**good, "keys": keys}) == (422, "bad_subscription")
        assert await refused({**good, "keys": {"p256dh": "x" * 101, "auth": "y"}}) == (422, "bad_request")
        assert await refused(good, token_="not a seat's token") == (400, "not_seated")
        assert await refused(good, code_="ZZZZ2345") == (404, "room_not_found")
        assert await refused(good, code_="no such code!") == (404, "room_not_found")
        bad_device = await http.post(f"/api/rooms/{code}/push", json={**on(token, good), "device": "short"})
        assert (bad_device.status_code, bad_device.json()["code"]) == (422, "bad_request")
        assert service.connections == 0


async def test_subscription_changes_are_limited_per_address(
    sqlite_url: str, sqlite_at_head: Path, service: PushService
) -> None:
    settings = server_settings(at_head(sqlite_url, sqlite_at_head), max_push_changes_per_minute=6)
    with running_server(settings) as base:
        async with httpx.AsyncClient(base_url=base) as http:
            body = {"token": "t", "device": DEVICE}
            answers = [
                (await http.post("/api/rooms/ABCD2345/push/off", json=body)).status_code for _ in range(3)
            ]
            assert answers == [204, 204, 429]  # bursts of a third of a minute's
