"""Web Push in the store, on SQLite and PostgreSQL: the server's key made once and kept, a seat's
subscriptions (one per device, bounded, only for a seated token), and the claim that lets exactly one
caller notify each turn."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta

from sqlalchemy import text, update

from app.rooms import hash_token
from app.store import Store
from app.store.push import ROOMS as ROOM_ROWS
from app.table import Change, Table, commands
from app.table.commands import new_table

from .conftest import NOW, OMID, SARA, make_rooms, subscription

ENDPOINT = "https://push.example.org/sub/"


async def test_the_key_is_made_once_and_kept(migrated_url: str) -> None:
    made: list[str] = []

    def make() -> str:
        made.append(f"key-{len(made)}")
        return made[-1]

    first, second = Store(migrated_url), Store(migrated_url)  # two processes' stores
    try:
        keys = await asyncio.gather(*(s.server_key("vapid", make) for s in (first, second, first, second)))
        assert len(set(keys)) == 1 and keys[0] in made
        assert await second.server_key("other", make) != keys[0]  # another name is another key
    finally:
        await first.close()
        await second.close()
    again = Store(migrated_url)  # a restart reads the key kept
    try:
        count = len(made)
        assert await again.server_key("vapid", make) == keys[0]
        assert len(made) == count, "a kept key is not made again"
    finally:
        await again.close()


async def test_one_subscription_per_seat_and_device_and_a_few_per_seat(store: Store) -> None:
    first = subscription(ENDPOINT + "a", device="device-1")
    assert await store.push_subscribe(first, now=NOW) == "subscribed"
    again = subscription(ENDPOINT + "b", device="device-1", lang="fa")
    assert await store.push_subscribe(again, now=NOW + timedelta(seconds=1)) == "subscribed"
    (kept,) = await store.push_subscriptions("PUSH2345", SARA)
    assert (kept.endpoint, kept.lang, kept.p256dh, kept.device) == (
        ENDPOINT + "b",
        "fa",
        again.p256dh,
        "device-1",
    )
    for n in range(2, 8):  # six more devices: the three oldest go
        sub = subscription(ENDPOINT + str(n), device=f"device-{n}")
        assert await store.push_subscribe(sub, now=NOW + timedelta(seconds=n), devices=4) == "subscribed"
    kept_devices = [s.device for s in await store.push_subscriptions("PUSH2345", SARA)]
    assert kept_devices == ["device-4", "device-5", "device-6", "device-7"]
    assert await store.push_subscriptions("PUSH2345", OMID) == []  # Omid sits elsewhere


async def test_only_a_seated_token_subscribes(store: Store) -> None:
    assert await store.push_subscribe(subscription(ENDPOINT, token_hash=OMID), now=NOW) == "not_seated"
    assert await store.push_subscribe(subscription(ENDPOINT, code="NONE2345"), now=NOW) == "no_room"
    assert await store.push_subscriptions("PUSH2345", OMID) == []


async def test_unsubscribing_one_device_all_of_a_seat_and_a_gone_one(store: Store) -> None:
    for device in ("device-1", "device-2", "device-3"):
        await store.push_subscribe(subscription(ENDPOINT + device, device=device), now=NOW)
    await store.push_subscribe(subscription(ENDPOINT, code="OTHR2345", token_hash=OMID), now=NOW)
    assert await store.push_unsubscribe("PUSH2345", SARA, "device-1") == 1
    assert await store.push_unsubscribe("PUSH2345", SARA, "device-1") == 0
    second, third = await store.push_subscriptions("PUSH2345", SARA)
    await store.push_drop(second.id)
    assert await store.push_subscriptions("PUSH2345", SARA) == [third]
    assert await store.push_unsubscribe("PUSH2345", SARA) == 1  # leaving the table: every device
    assert await store.push_subscriptions("PUSH2345", SARA) == []
    assert len(await store.push_subscriptions("OTHR2345", OMID)) == 1


async def test_exactly_one_claim_of_a_turn_wins_in_any_number_of_processes(migrated_url: str) -> None:
    stores = [Store(migrated_url) for _ in range(3)]
    try:
        await make_rooms(stores[0])
        await stores[0].push_subscribe(subscription(ENDPOINT), now=NOW)
        (sub,) = await stores[0].push_subscriptions("PUSH2345", SARA)
        for turn in ("g1:r1:t3", "g1:r1:t7"):
            claims = [s.push_claim(sub.id, turn, "turn") for s in stores for _ in range(4)]
            assert sum(await asyncio.gather(*claims)) == 1, turn
            assert not await stores[1].push_claim(sub.id, turn, "turn"), "never again"
        # The reminder of a turn is claimed on its own; the turn's key is untouched.
        assert sum(await asyncio.gather(*(s.push_claim(sub.id, "g1:r1:t7", "reminder") for s in stores))) == 1
        assert not await stores[2].push_claim(sub.id, "g1:r1:t7", "turn")
        assert not await stores[0].push_claim(sub.id + 100, "g1:r1:t9", "turn")  # no such subscription
    finally:
        for s in stores:
            await s.close()


async def test_a_turn_is_claimed_only_while_it_is_under_way(store: Store) -> None:
    """A look that read a turn just before it ended may claim it after the next turn's claim: with the
    turn's deadline, that claim loses (the claim keeps only the last turn's key, so it would otherwise win,
    and the next turn would then be notified a second time)."""
    await store.push_subscribe(subscription(ENDPOINT), now=NOW)
    (sub,) = await store.push_subscriptions("PUSH2345", SARA)
    first, second = NOW + timedelta(hours=24), NOW + timedelta(hours=27)

    async def under_way(due: datetime) -> None:
        async with store.engine.begin() as conn:
            await conn.execute(update(ROOM_ROWS).where(ROOM_ROWS.c.code == "PUSH2345").values(due_at=due))

    await under_way(first)
    assert await store.push_claim(sub.id, "t-first", "turn", first)
    await under_way(second)  # the first turn is over: a late claim of it loses, the second's wins once
    assert not await store.push_claim(sub.id, "t-first", "reminder", first)
    assert await store.push_claim(sub.id, "t-second", "turn", second)
    assert not await store.push_claim(sub.id, "t-first", "turn", first)
    assert not await store.push_claim(sub.id, "t-second", "turn", second)
    assert await store.push_claim(sub.id, "t-second", "reminder", second)
    assert not await store.push_claim(sub.id, "t-third", "turn", second + timedelta(hours=3))


async def test_the_subscriptions_go_with_their_room(store: Store) -> None:
    await store.push_subscribe(subscription(ENDPOINT), now=NOW)
    async with store.engine.begin() as conn:
        await conn.execute(text("delete from rooms where code = 'PUSH2345'"))
    assert await store.push_subscriptions("PUSH2345", SARA) == []


async def commit(store: Store, change: Change | None) -> Table:
    assert change is not None
    await store.commit(change)
    return change.table


async def test_a_token_that_no_longer_holds_a_seat_loses_its_subscriptions(store: Store) -> None:
    """Removed from the lobby: gone at once. Left during a game: kept while a bot plays the seat for it (it
    may take the seat back unasked); gone when someone else takes that seat. The host's stay throughout."""
    code, guest, newcomer = "SEAT2345", hash_token("guest's token"), hash_token("newcomer's token")
    table = new_table(code=code, host="Sara", token_hash=SARA, bots=[], seat_count=2, options={}, now=NOW)
    await store.create_room(table, now=NOW)

    table = await commit(store, commands.join(table, name="Guest", token_hash=guest, at=NOW))
    await store.push_subscribe(subscription(ENDPOINT + "host", code=code), now=NOW)
    await store.push_subscribe(subscription(ENDPOINT + "guest", code=code, token_hash=guest), now=NOW)
    table = await commit(store, commands.remove_seat(table, index=1, at=NOW))
    assert await store.push_subscriptions(code, guest) == []
    assert len(await store.push_subscriptions(code, SARA)) == 1

    table = await commit(store, commands.join(table, name="Guest", token_hash=guest, at=NOW))
    await store.push_subscribe(subscription(ENDPOINT + "guest", code=code, token_hash=guest), now=NOW)
    table = await commit(store, commands.leave(table, index=1, at=NOW, away={}))
    assert len(await store.push_subscriptions(code, guest)) == 1, "a bot plays the seat for them"

    asked = commands.request_seat(table, index=1, name="New", token_hash=newcomer, at=NOW)
    table = await commit(store, asked)
    assert len(await store.push_subscriptions(code, guest)) == 1, "only asked for: still theirs"
    table = await commit(store, commands.approve_seat(table, index=1, at=NOW))
    assert table.seats[1].token_hash == newcomer
    assert await store.push_subscriptions(code, guest) == []
    assert len(await store.push_subscriptions(code, SARA)) == 1
    assert len(await store.push_subscriptions("PUSH2345", SARA)) == 0, "another room: untouched"
