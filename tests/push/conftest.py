"""Fixtures for Web Push: a migrated database with two tables, and the test push service."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime

import pytest

from app.rooms import hash_token
from app.store import PushSubscription, Store
from app.table.commands import new_table
from tests.push_service import Keys, PushService, push_service

NOW = datetime(2026, 12, 6, 8, 0, tzinfo=UTC)
SARA = hash_token("sara's token")  # the host of PUSH2345
OMID = hash_token("omid's token")  # the host of OTHR2345
ROOMS = {"PUSH2345": ("Sara", SARA), "OTHR2345": ("Omid", OMID)}


async def make_rooms(store: Store) -> None:
    for code, (host, token_hash) in ROOMS.items():
        table = new_table(
            code=code, host=host, token_hash=token_hash, bots=[], seat_count=2, options={}, now=NOW
        )
        await store.create_room(table, now=NOW)


@pytest.fixture
async def store(migrated_url: str) -> AsyncIterator[Store]:
    store = Store(migrated_url)
    await make_rooms(store)
    yield store
    await store.close()


@pytest.fixture
def service() -> Iterator[PushService]:
    with push_service() as running:
        yield running


def subscription(
    endpoint: str,
    *,
    code: str = "PUSH2345",
    token_hash: str = SARA,
    device: str = "device-1",
    lang: str = "en",
) -> PushSubscription:
    """A subscription with well-formed keys (of nobody: for the store's own tests)."""
    keys = Keys().json()
    return PushSubscription(code, token_hash, device, endpoint, keys["p256dh"], keys["auth"], lang)
