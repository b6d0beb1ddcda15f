"""Shared fixtures: database URLs for SQLite and PostgreSQL (fresh database per test), and settings."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

# Whole games in tests run without the pause between rounds (the tests of the pause set it themselves);
# servers started as subprocesses inherit it.
os.environ.setdefault("ROUND_BREAK_SECONDS", "0")

DEFAULT_TEST_POSTGRES_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
_pg_status: dict[str, str | None] = {}


def postgres_test_url() -> str:
    return os.environ.get("TEST_POSTGRES_URL", DEFAULT_TEST_POSTGRES_URL)


def services_required() -> bool:
    return os.environ.get("REQUIRE_SERVICES", "") in ("1", "true", "yes")


def _asyncpg_dsn(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


async def _pg_unreachable_reason(url: str) -> str | None:
    """None when PostgreSQL answers; else why not. Checked once per test session."""
    if "reason" not in _pg_status:
        import asyncpg

        try:
            conn = await asyncio.wait_for(asyncpg.connect(_asyncpg_dsn(url)), timeout=3)
            await conn.close()
            _pg_status["reason"] = None
        except Exception as exc:  # any failure means: not available here
            _pg_status["reason"] = f"PostgreSQL at {url} is unreachable: {exc!r}"
    return _pg_status["reason"]


@asynccontextmanager
async def fresh_pg_database() -> AsyncIterator[str]:
    """A fresh, empty PostgreSQL database (dropped afterwards), so runs never see each other's tables.

    Skips when PostgreSQL is unreachable, unless REQUIRE_SERVICES=1 (CI), where it fails.
    """
    import asyncpg
    from sqlalchemy.engine import make_url

    base = postgres_test_url()
    reason = await _pg_unreachable_reason(base)
    if reason:
        if services_required():
            pytest.fail(reason + " (REQUIRE_SERVICES=1)")
        pytest.skip(reason)
    name = f"tt_test_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(_asyncpg_dsn(base))
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    url = make_url(base).set(drivername="postgresql+asyncpg", database=name)
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        admin = await asyncpg.connect(_asyncpg_dsn(base))
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()


@pytest.fixture
async def pg_url() -> AsyncIterator[str]:
    async with fresh_pg_database() as url:
        yield url


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'test.db'}"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """An empty database URL: SQLite file, then PostgreSQL (the ``postgres`` marker)."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'test.db'}"
    else:
        async with fresh_pg_database() as url:
            yield url


@pytest.fixture
async def migrated_url(db_url: str) -> str:
    """``db_url`` after ``alembic upgrade head``."""
    from app.store import run_migrations

    await run_migrations(db_url)
    return db_url
