"""Shared fixtures: database URLs for SQLite and PostgreSQL (fresh database per test), and settings."""

from __future__ import annotations

import asyncio
import os
import shutil
import uuid
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

# Whole games in tests run without the pause between rounds (the tests of the pause set it themselves);
# servers started as subprocesses inherit it.
os.environ.setdefault("ROUND_BREAK_SECONDS", "0")


def _one_tls_context_for_every_client() -> None:
    """httpx makes a TLS context for every client it opens (a CA bundle read and parsed: about 20 ms of CPU),
    even for the plain HTTP to 127.0.0.1 that nearly every test speaks: a quarter of the API and security
    suites' CPU (py-spy). Clients that ask for the default (``verify=True``, no client certificate) share one
    context per bundle the environment names (``SSL_CERT_FILE``, ``SSL_CERT_DIR``), made once; any other
    asks as before."""
    import httpx._transports.default as transports

    make = transports.create_ssl_context
    made: dict[tuple[bool, str | None, str | None], Any] = {}

    def create(verify: Any = True, cert: Any = None, trust_env: bool = True) -> Any:
        if verify is not True or cert is not None:
            return make(verify=verify, cert=cert, trust_env=trust_env)
        bundle = (trust_env, os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))
        if bundle not in made:
            made[bundle] = make(verify=True, trust_env=trust_env)
        return made[bundle]

    transports.create_ssl_context = create


_one_tls_context_for_every_client()

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


@pytest.fixture(scope="session")
def sqlite_at_head(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file after ``alembic upgrade head``, made once per test process: tests that need a migrated
    database (not the migrations themselves) start from a copy (a fresh migration costs ~0.2 s of CPU, a copy
    nothing; the server's own ``upgrade head`` on start then finds the schema at head)."""
    from app.store import upgrade_head

    path = tmp_path_factory.mktemp("sqlite-at-head") / "head.db"
    # In a thread: the migration runs an event loop of its own, and this thread's may be running (or marked
    # running by Playwright's sync API).
    with ThreadPoolExecutor(1) as pool:
        pool.submit(upgrade_head, f"sqlite+aiosqlite:///{path}").result()
    return path


def at_head(url: str, template: Path) -> str:
    """``url`` itself; when it names a SQLite file that does not exist yet, that file is first made a copy of
    ``template`` (``sqlite_at_head``). PostgreSQL URLs are left as they are (the server migrates them)."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database and not Path(parsed.database).exists():
        shutil.copyfile(template, parsed.database)
    return url


@pytest.fixture
async def migrated_url(db_url: str, sqlite_at_head: Path) -> str:
    """``db_url`` after ``alembic upgrade head`` (SQLite: a copy of ``sqlite_at_head``)."""
    from app.store import run_migrations

    await run_migrations(at_head(db_url, sqlite_at_head))
    return db_url


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``--dist loadgroup``: the tests of one ``xdist_group`` run on one worker. pytest-xdist (3.8) marks
    them by writing ``item._nodeid``, which pytest 9.2 no longer reads (a node's id is now ``item._id``):
    every group was silently spread over all workers (the scale suite's clusters at once, the fuzz's count
    per worker). This gives the ids xdist's scheduler reads their ``@group`` suffix where its hook did not."""
    if not getattr(config.option, "loadgroup", False):
        return
    try:
        from _pytest.nodeid import NodeId
    except ImportError:  # pytest before 9.2: xdist's own suffix works
        return

    for item in items:
        names = {
            str(m.args[0] if m.args else m.kwargs.get("name", "default"))
            for m in item.iter_markers("xdist_group")
        }
        suffix = "@" + "_".join(sorted(names))
        if names and not item.nodeid.endswith(suffix):
            item._id = NodeId.parse(item.nodeid + suffix)  # type: ignore[attr-defined]
