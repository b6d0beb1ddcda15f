"""Fixtures for the HTTP and WebSocket tests: a real uvicorn server on the test database."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from app.store import Store

from .wsclient import running_server, server_settings


@pytest.fixture
async def server(db_url: str) -> AsyncIterator[str]:
    """Base URL of a real server (uvicorn, in a thread) on a fresh SQLite or PostgreSQL database."""
    with running_server(server_settings(db_url)) as base:
        yield base


@pytest.fixture
async def sqlite_server(sqlite_url: str) -> AsyncIterator[str]:
    with running_server(server_settings(sqlite_url)) as base:
        yield base


@pytest.fixture
async def store(db_url: str) -> AsyncIterator[Store]:
    """A second view of the server's database, for checking what was committed."""
    s = Store(db_url)
    yield s
    await s.close()
