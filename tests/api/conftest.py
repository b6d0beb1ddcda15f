"""Fixtures for the HTTP and WebSocket tests: a real uvicorn server on the test database."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.store import Store
from tests.conftest import at_head

from .wsclient import running_server, server_settings


@pytest.fixture
async def server(db_url: str, sqlite_at_head: Path) -> AsyncIterator[str]:
    """Base URL of a real server (uvicorn, in a thread) on a fresh SQLite (a copy of a migrated one) or
    PostgreSQL database. It believes X-Forwarded-For from loopback, so a test can seat friends from
    several addresses (``create_room``/``join_room``'s ``address``); without the header, all is 127.0.0.1."""
    with running_server(
        server_settings(at_head(db_url, sqlite_at_head), trusted_proxies="127.0.0.1")
    ) as base:
        yield base


@pytest.fixture
async def sqlite_server(sqlite_url: str, sqlite_at_head: Path) -> AsyncIterator[str]:
    with running_server(server_settings(at_head(sqlite_url, sqlite_at_head))) as base:
        yield base


@pytest.fixture
async def store(db_url: str) -> AsyncIterator[Store]:
    """A second view of the server's database, for checking what was committed."""
    s = Store(db_url)
    yield s
    await s.close()
