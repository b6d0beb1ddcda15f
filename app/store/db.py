"""Database engines: URL normalising, SQLite pragmas (WAL, busy timeout), and running migrations."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from sqlalchemy import event, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import NullPool

ROOT = Path(__file__).resolve().parents[2]
ALEMBIC_INI = ROOT / "alembic.ini"
SQLITE_BUSY_TIMEOUT_MS = 5000
MIGRATION_LOCK_KEY = 0x7431_3331  # the PostgreSQL advisory lock taken while migrating ("t313")


def normalize_url(url: str) -> str:
    """Pick the async driver: ``postgresql://`` → asyncpg, ``sqlite://`` → aiosqlite."""
    parsed = make_url(url)
    if parsed.drivername in ("postgresql", "postgres", "postgresql+psycopg2", "postgresql+psycopg"):
        parsed = parsed.set(drivername="postgresql+asyncpg")
    elif parsed.drivername in ("sqlite", "sqlite+pysqlite"):
        parsed = parsed.set(drivername="sqlite+aiosqlite")
    return parsed.render_as_string(hide_password=False)


def is_sqlite(url: str | URL) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def sqlite_file(url: str) -> str | None:
    """The path of a SQLite database file (None: not SQLite, or an in-memory database)."""
    parsed = make_url(normalize_url(url))
    if not is_sqlite(parsed) or parsed.database in (None, "", ":memory:"):
        return None
    return str(parsed.database)


def ensure_sqlite_dir(url: str) -> None:
    """Create the directory of a SQLite file (``./data`` by default) so a fresh checkout just runs."""
    parsed = make_url(url)
    if is_sqlite(parsed) and parsed.database and parsed.database != ":memory:":
        Path(parsed.database).expanduser().resolve().parent.mkdir(parents=True, exist_ok=True)


def sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    # WAL lets readers and one writer work at once; FULL sync makes every acknowledged move durable.
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def make_engine(url: str, **kwargs: Any) -> AsyncEngine:
    url = normalize_url(url)
    if is_sqlite(url):
        ensure_sqlite_dir(url)
        if make_url(url).database in (None, "", ":memory:"):  # one shared connection: no pool to size
            kwargs.pop("pool_size", None)
            kwargs.pop("max_overflow", None)
        engine = create_async_engine(url, **kwargs)
        event.listen(engine.sync_engine, "connect", sqlite_pragmas)
        return engine
    # No ping before each use (a round trip per move): the store retries once on a dead connection.
    return create_async_engine(url, **kwargs)


def alembic_config(url: str) -> Any:
    from alembic.config import Config

    config = Config(str(ALEMBIC_INI))
    config.set_main_option("script_location", str(ROOT / "migrations"))
    # '%' must be escaped for ConfigParser (passwords may contain it).
    config.set_main_option("sqlalchemy.url", normalize_url(url).replace("%", "%%"))
    config.attributes["configure_logger"] = False
    return config


def upgrade_head(url: str) -> None:
    """``alembic upgrade head`` (blocking: the async env runs its own event loop). On PostgreSQL, under an
    advisory lock: processes started together migrate one after the other (the first does the work, the
    others find the schema at head)."""
    if is_sqlite(normalize_url(url)):
        _alembic_upgrade(url)
    else:
        asyncio.run(_upgrade_under_lock(url))


def _alembic_upgrade(url: str) -> None:
    from alembic import command

    ensure_sqlite_dir(normalize_url(url))
    command.upgrade(alembic_config(url), "head")


async def _upgrade_under_lock(url: str) -> None:
    engine = create_async_engine(normalize_url(url), poolclass=NullPool)
    try:
        async with engine.connect() as conn:
            await conn.execute(text("SELECT pg_advisory_lock(:key)"), {"key": MIGRATION_LOCK_KEY})
            try:
                await asyncio.to_thread(_alembic_upgrade, url)
            finally:
                await conn.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": MIGRATION_LOCK_KEY})
    finally:
        await engine.dispose()


async def run_migrations(url: str) -> None:
    """Apply migrations from async code: in a worker thread, which may run its own event loop."""
    await asyncio.to_thread(upgrade_head, url)
