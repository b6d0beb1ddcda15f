"""Finished games' replays and exports are built once and then served from memory, bounded in bytes, and
asking for them is rate-limited per address (issue 23, item 6): against a real server (uvicorn in a thread
of the test, whose process's CPU time is measured)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from app.api import history as history_routes
from app.api.record_cache import RecordCache
from tests.api.test_history import play_with_a_bot
from tests.api.wsclient import running_server, server_settings
from tests.conftest import at_head

from .conftest import LiveServer

CACHED_READS = 8


@pytest.mark.slow
async def test_a_finished_replay_is_built_once_and_asking_for_records_is_rate_limited(
    live: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    _code, game_id = await play_with_a_bot(live.base, "Sara")
    builds: list[int] = []
    real_steps = history_routes.replay_steps

    def counted(*args: Any, **kwargs: Any) -> Any:  # the costly part: the whole game through the engine
        builds.append(1)
        return real_steps(*args, **kwargs)

    monkeypatch.setattr(history_routes, "replay_steps", counted)  # the server runs in this process
    async with httpx.AsyncClient(base_url=live.base, timeout=60) as http:
        first = await http.get(f"/api/games/{game_id}/replay")
        assert first.status_code == 200 and first.headers["content-type"] == "application/json"
        again = [await http.get(f"/api/games/{game_id}/replay") for _ in range(CACHED_READS)]
        assert all(r.status_code == 200 and r.content == first.content for r in again)
        # Built once, served from memory after (before the cache, each request replayed the whole game).
        assert len(builds) == 1, builds

        answers = [(await http.get(f"/api/games/{game_id}/export")).status_code for _ in range(30)]
    assert answers[0] == 200 and 429 in answers, answers
    async with httpx.AsyncClient(base_url=live.base) as http:
        limited = await http.get(f"/api/games/{game_id}/export")
    assert limited.status_code == 429 and limited.json()["code"] == "rate_limited"


def test_the_cache_keeps_at_most_its_bytes_dropping_the_least_recently_read() -> None:
    cache = RecordCache(max_bytes=100)
    cache.put(("replay", "a"), b"a" * 40)
    cache.put(("replay", "b"), b"b" * 40)
    assert cache.get(("replay", "a")) is not None  # read: now the most recent
    cache.put(("replay", "c"), b"c" * 40)
    assert cache.get(("replay", "b")) is None and cache.get(("replay", "a")) == b"a" * 40
    assert cache.bytes_held == 80
    cache.put(("export", "huge"), b"x" * 101)  # larger than the whole cache: served, never kept
    assert cache.get(("export", "huge")) is None and cache.bytes_held == 80


async def test_callers_asking_at_once_share_one_build() -> None:
    cache, builds = RecordCache(max_bytes=1000), []

    async def build() -> bytes:
        builds.append(1)
        await asyncio.sleep(0.05)
        return b"{}"

    bodies = await asyncio.gather(*(cache.get_or_build(("replay", "g"), build) for _ in range(5)))
    assert bodies == [b"{}"] * 5 and len(builds) == 1
    assert await cache.get_or_build(("replay", "g"), build) == b"{}" and len(builds) == 1


async def test_every_read_by_name_spends_one_budget_per_address(sqlite_url: str, sqlite_at_head: Any) -> None:
    """A player's games and a player's record share one per-address budget (MAX_STANDINGS_PER_MINUTE,
    bursts of a third of it): the games by name had none, and one client could keep the server busy."""
    settings = server_settings(at_head(sqlite_url, sqlite_at_head), max_standings_per_minute=6)
    with running_server(settings) as base:
        async with httpx.AsyncClient(base_url=base) as http:
            answers = [(await http.get("/api/players/Sara/games")).status_code for _ in range(2)]
            record = await http.get("/api/players/Sara")
            games = await http.get("/api/players/Sara/games")
    assert answers == [200, 200], answers  # a burst of 2 (6 a minute)
    assert record.status_code == 429 and record.json()["code"] == "rate_limited"
    assert games.status_code == 429 and games.json()["code"] == "rate_limited"
