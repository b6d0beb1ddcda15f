"""Turn notifications through a real push service (tests/push_service.py): they arrive encrypted for the
subscription and signed for the service, in the subscriber's language; at most one per turn whoever sends;
a gone subscription is dropped; a hanging service holds up nothing else; and endpoints the server may not
reach are never contacted."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from sqlalchemy import text

from app.config import Settings
from app.push import Pusher
from app.store import PushSubscription, Store
from tests.push_service import Keys, PushService, push_service

from .conftest import NOW, OMID, SARA

MakePusher = Callable[..., Pusher]


def settings_for(service: PushService) -> Settings:
    return Settings(_env_file=None, push_allowed_hosts=f"127.0.0.1:{service.port}")  # type: ignore[call-arg]


@pytest.fixture
async def pushers(service: PushService) -> AsyncIterator[MakePusher]:
    """Makes started pushers (closed at the end) allowed to reach the test push service."""
    made: list[Pusher] = []

    def make(store: Store, **kwargs: Any) -> Pusher:
        pusher = Pusher(store, settings_for(service), **kwargs)
        pusher.start()
        made.append(pusher)
        return pusher

    yield make
    for pusher in made:
        await pusher.close()


async def subscribe(
    store: Store,
    service: PushService,
    name: str,
    *,
    code: str = "PUSH2345",
    token_hash: str = SARA,
    lang: str = "en",
) -> None:
    browser = service.subscription(name)
    keys = browser["keys"]
    sub = PushSubscription(code, token_hash, name, browser["endpoint"], keys["p256dh"], keys["auth"], lang)
    assert await store.push_subscribe(sub, now=NOW) == "subscribed"


async def arrived(service: PushService, count: int, timeout: float = 10.0) -> None:
    await asyncio.to_thread(service.wait_for, count, timeout)


async def test_a_turn_arrives_decrypted_with_its_text_in_english_and_persian(
    store: Store, service: PushService, pushers: MakePusher
) -> None:
    await subscribe(store, service, "sara-phone")
    await subscribe(store, service, "omid-phone", code="OTHR2345", token_hash=OMID, lang="fa")
    pusher = pushers(store)
    assert pusher.turn("PUSH2345", SARA, "g1:r1:t1", "Sara", ttl=8 * 3600)
    assert pusher.turn("OTHR2345", OMID, "g1:r1:t1", "امید")
    await pusher.drain()
    (sara,) = service.at("sara-phone")
    assert sara.payload == {
        "title": "Your turn at Sara’s table",
        "body": "Tap to open the table and play.",
        "url": "/r/PUSH2345",
        "tag": "turn-PUSH2345",
        "lang": "en",
        "dir": "ltr",
    }
    assert sara.headers["ttl"] == str(8 * 3600) and sara.headers["urgency"] == "normal"
    assert sara.claims["aud"] == service.origin and sara.claims["sub"] == "mailto:admin@localhost"
    assert sara.key == await pusher.public_key()
    (omid,) = service.at("omid-phone")
    assert omid.payload["title"] == "نوبت شماست، میز امید"
    assert omid.payload["body"] == "بزنید تا میز باز شود و بازی کنید."
    assert (omid.payload["url"], omid.payload["tag"], omid.payload["dir"]) == (
        "/r/OTHR2345",
        "turn-OTHR2345",
        "rtl",
    )

    assert pusher.reminder("PUSH2345", SARA, "g1:r1:t1", "Sara")
    assert pusher.reminder("OTHR2345", OMID, "g1:r1:t1", "امید")
    await pusher.drain()
    reminder = service.at("sara-phone")[1]
    assert reminder.payload["title"] == "An hour left for your turn at Sara’s table"
    assert reminder.headers["urgency"] == "high" and reminder.headers["ttl"] == "3600"
    assert service.at("omid-phone")[1].payload["title"] == "یک ساعت تا پایان نوبت شما در میز امید مانده است"
    assert service.refused == []


async def test_at_most_one_notification_per_turn_from_any_number_of_pushers(
    store: Store, migrated_url: str, service: PushService, pushers: MakePusher
) -> None:
    await subscribe(store, service, "sara-phone")
    await subscribe(store, service, "sara-laptop")
    other = Store(migrated_url)  # another process on the same database
    try:
        here, there = pushers(store), pushers(other)
        for _ in range(3):
            here.turn("PUSH2345", SARA, "g1:r2:t5", "Sara")
            there.turn("PUSH2345", SARA, "g1:r2:t5", "Sara")
        await asyncio.gather(here.drain(), there.drain())
        assert len(service.at("sara-phone")) == len(service.at("sara-laptop")) == 1
        assert await here.public_key() == await there.public_key()  # one key, kept in the database
        there.turn("PUSH2345", SARA, "g1:r2:t6", "Sara")  # the next turn is notified again
        await there.drain()
        assert len(service.at("sara-phone")) == len(service.at("sara-laptop")) == 2
    finally:
        await other.close()


async def test_a_gone_subscription_is_dropped(
    store: Store, service: PushService, pushers: MakePusher
) -> None:
    await subscribe(store, service, "sara-old")
    await subscribe(store, service, "sara-new")
    service.answers["/push/sara-old"] = 410
    pusher = pushers(store)
    pusher.turn("PUSH2345", SARA, "t1", "Sara")
    await pusher.drain()
    assert [s.device for s in await store.push_subscriptions("PUSH2345", SARA)] == ["sara-new"]
    assert len(service.at("sara-new")) == 1
    service.answers["/push/sara-new"] = 500  # a failure that is not "gone" keeps the subscription
    pusher.turn("PUSH2345", SARA, "t2", "Sara")
    await pusher.drain()
    assert [s.device for s in await store.push_subscriptions("PUSH2345", SARA)] == ["sara-new"]


async def test_a_hanging_push_service_holds_up_nothing_else(
    store: Store, service: PushService, pushers: MakePusher
) -> None:
    await subscribe(store, service, "sara-hangs")
    await subscribe(store, service, "sara-quick")
    service.hangs["/push/sara-hangs"] = 6.0
    pusher = pushers(store, timeout=4.0)
    started = time.perf_counter()
    pusher.turn("PUSH2345", SARA, "t1", "Sara")
    for n in range(200):  # a burst of nudges (nobody else subscribed) is queued at once too
        pusher.turn("OTHR2345", OMID, f"t{n}", "Omid")
    assert time.perf_counter() - started < 0.05
    await arrived(service, 1, timeout=3.5)  # while the other push hangs, before its timeout
    assert [r.path for r in service.received] == ["/push/sara-quick"]
    assert time.perf_counter() - started < 3.5
    await asyncio.wait_for(pusher.drain(), 8)  # the hanging push gave up at its timeout
    assert 4.0 <= time.perf_counter() - started < 6.0
    assert service.at("sara-hangs") == []


async def test_a_full_queue_drops_and_never_waits(store: Store, service: PushService) -> None:
    pusher = Pusher(store, settings_for(service), queue_size=3)  # not started: nothing is taken off
    try:
        assert [pusher.turn("PUSH2345", SARA, f"t{n}", "Sara") for n in range(5)] == [True] * 3 + [False] * 2
    finally:
        await pusher.close()


async def test_a_device_gets_at_most_its_hourly_budget_on_the_pushers_clock(
    store: Store, service: PushService, pushers: MakePusher
) -> None:
    """PER_HOUR pushes to one endpoint in an hour, then none until the pusher's clock (the process's, which
    the tests of real processes move on by hours) has passed the hour."""
    await subscribe(store, service, "sara-phone")
    now = [1000.0]
    pusher = pushers(store, per_hour=3, clock=lambda: now[0])
    for n in range(4):
        pusher.turn("PUSH2345", SARA, f"t{n}", "Sara")
        await pusher.drain()
    assert len(service.at("sara-phone")) == 3, "the fourth push is over the budget"
    now[0] += 3599
    pusher.turn("PUSH2345", SARA, "t4", "Sara")
    await pusher.drain()
    assert len(service.at("sara-phone")) == 3
    now[0] += 1  # an hour since the first three
    pusher.turn("PUSH2345", SARA, "t5", "Sara")
    await pusher.drain()
    assert len(service.at("sara-phone")) == 4


async def insert_unchecked(store: Store, endpoint: str) -> None:
    """A subscription the routes would refuse, written as a bug or an older server might have."""
    keys = Keys().json()
    async with store.engine.begin() as conn:
        await conn.execute(
            text(
                "insert into push_subscriptions (room_code, token_hash, device, endpoint, p256dh, auth, "
                "lang, created_at) values ('PUSH2345', :hash, :device, :endpoint, :p256dh, :auth, 'en', :now)"
            ),
            {"hash": SARA, "device": endpoint[-40:], "endpoint": endpoint, **keys, "now": NOW},
        )


async def test_endpoints_on_addresses_not_allowed_are_never_contacted(
    store: Store, service: PushService, pushers: MakePusher
) -> None:
    with push_service() as elsewhere:  # a push service on a port PUSH_ALLOWED_HOSTS does not name
        elsewhere.subscription("x")
        for endpoint in (
            f"http://127.0.0.1:{elsewhere.port}/push/x",  # loopback, over http
            f"https://127.0.0.1:{elsewhere.port}/push/x",
            f"https://localhost:{elsewhere.port}/push/x",  # a name that resolves to loopback
            f"https://[::ffff:127.0.0.1]:{elsewhere.port}/push/x",  # IPv4-mapped loopback
            f"http://localhost:{service.port}/push/x",  # the allowed service, by a name it is not allowed as
        ):
            await insert_unchecked(store, endpoint)
        pusher = pushers(store)
        pusher.turn("PUSH2345", SARA, "t1", "Sara")
        await pusher.drain()
        assert elsewhere.connections == 0 and elsewhere.received == []
        assert service.connections == 0
        assert len(await store.push_subscriptions("PUSH2345", SARA)) == 5  # refused, not gone: kept
