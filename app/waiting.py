"""At start, wait for the database (and Redis, with REDIS_URL) to answer before migrating or serving.

A container may start before its database accepts connections (a fresh volume is still being initialised,
or the orchestrator does not honour "start after the database is healthy"). Rather than exit at once and
rely on a restart policy, the server tries again with a growing pause, says so in one log line per try,
and gives up with a clear error after ``STARTUP_WAIT_SECONDS``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from sqlalchemy.engine import make_url

from app.config import Settings, is_redis_cluster, plain_redis_url

log = logging.getLogger(__name__)

FIRST_PAUSE = 0.5  # seconds before the second try; doubled each time, up to LONGEST_PAUSE
LONGEST_PAUSE = 5.0
TRY_TIMEOUT = 5.0  # one try (a connection attempt) takes at most this long


class ServiceUnreachable(RuntimeError):
    """A service did not answer within the wait; the message says which, where, and the last error."""


Probe = Callable[[], Awaitable[None]]


async def wait_until_reachable(
    what: str,
    probe: Probe,
    wait_seconds: float,
    *,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> int:
    """Call ``probe`` until it returns without raising; return the number of tries. Raise
    ServiceUnreachable once ``wait_seconds`` have passed without an answer (0: one try only)."""
    start = clock()
    pause = FIRST_PAUSE
    tries = 0
    while True:
        tries += 1
        try:
            await asyncio.wait_for(probe(), timeout=TRY_TIMEOUT)
        except Exception as exc:  # any failure to connect is "not yet"
            error = _describe(exc)
            waited = clock() - start
            left = wait_seconds - waited
            if left <= 0:
                raise ServiceUnreachable(
                    f"{what} did not answer within {wait_seconds:g} s ({tries} tries; last error: {error}). "
                    "Is it running, and is its address right? Not starting."
                ) from exc
            pause = min(pause, left)
            log.warning(
                "waiting for %s: try %d failed (%s); next try in %.1f s (%.0f s of %g s waited)",
                what,
                tries,
                error,
                pause,
                waited,
                wait_seconds,
            )
            await sleep(pause)
            pause = min(pause * 2, LONGEST_PAUSE)
            continue
        if tries > 1:
            log.info("%s answered after %d tries", what, tries)
        return tries


def _describe(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError):
        return f"no answer within {TRY_TIMEOUT:g} s"
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def database_place(url: str) -> str:
    """The database's address for a log line, without its password: ``host:port/name``."""
    parsed = make_url(url)
    return f"{parsed.host or 'localhost'}:{parsed.port or 5432}/{parsed.database or ''}"


def redis_place(url: str) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return f"{parts.hostname or 'localhost'}:{parts.port or 6379}{parts.path or ''}"


async def probe_database(url: str) -> None:
    """Open one connection to the database (nothing is read or written) and close it."""
    from app.store.db import make_engine

    engine = make_engine(url, pool_size=1, max_overflow=0)
    try:
        async with engine.connect():
            pass
    finally:
        await engine.dispose()


async def probe_redis(url: str) -> None:
    """PING Redis: one server, or every node of a cluster (``redis+cluster://``)."""
    from redis import asyncio as aioredis
    from redis.asyncio.cluster import RedisCluster

    client: aioredis.Redis | RedisCluster
    if is_redis_cluster(url):
        plain = plain_redis_url(url)
        client = RedisCluster.from_url(plain, socket_connect_timeout=TRY_TIMEOUT, socket_timeout=TRY_TIMEOUT)
    else:
        client = aioredis.Redis.from_url(url, socket_connect_timeout=TRY_TIMEOUT, socket_timeout=TRY_TIMEOUT)
    try:
        if isinstance(client, RedisCluster):  # by default a cluster's PING asks one node
            await client.execute_command("PING", target_nodes=RedisCluster.ALL_NODES)
        else:
            await client.ping()
    finally:
        await client.aclose()


async def wait_for_services(settings: Settings) -> None:
    """Wait for the PostgreSQL database (a SQLite file needs no wait) and Redis when REDIS_URL is set."""
    from app.store.db import is_sqlite, normalize_url

    url = normalize_url(settings.database_url)
    if not is_sqlite(url):
        where = database_place(url)
        await wait_until_reachable(
            f"the database at {where}", lambda: probe_database(url), settings.startup_wait_seconds
        )
    if settings.redis_url:
        where = redis_place(settings.redis_url)
        await wait_until_reachable(
            f"Redis at {where}", lambda: probe_redis(settings.redis_url), settings.startup_wait_seconds
        )


def wait_or_exit(settings: Settings) -> None:
    """``wait_for_services``; if a service never answered, log why and exit with status 1."""
    try:
        asyncio.run(wait_for_services(settings))
    except ServiceUnreachable as exc:
        log.error("%s", exc)
        raise SystemExit(1) from None
