"""Fixtures for the rooms tests: a migrated SQLite store, a manual clock, a RoomManager, and a second one
on the same database standing for another process (``elsewhere``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.config import Settings
from app.rooms import RoomManager
from app.store import Store
from tests.conftest import at_head

from .fakes import ManualClock, SharedButSilent


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
async def manager(sqlite_url: str, clock: ManualClock, sqlite_at_head: Path) -> AsyncIterator[RoomManager]:
    at_head(sqlite_url, sqlite_at_head)  # a copy of the migrated database
    store = Store(sqlite_url)
    settings = Settings(_env_file=None, database_url=sqlite_url, bot_delay_ms=700)  # type: ignore[call-arg]
    manager = RoomManager(store=store, settings=settings, clock=clock)
    yield manager
    await manager.close()
    await store.close()


@pytest.fixture
async def elsewhere(manager: RoomManager, sqlite_url: str) -> AsyncIterator[RoomManager]:
    """A second process on the same database that hears none of the first one's notices."""
    store = Store(sqlite_url)
    settings = Settings(_env_file=None, database_url=sqlite_url, bot_delay_ms=700)  # type: ignore[call-arg]
    other = RoomManager(store=store, settings=settings, clock=ManualClock(), broadcaster=SharedButSilent())
    yield other
    await other.close()
    await store.close()
