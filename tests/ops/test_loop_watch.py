"""The event-loop watch (``app.runtime.watch_event_loop``): a callback that holds the loop shows up in
``threethirteen_event_loop_lag_seconds``, and /metrics serves it."""

from __future__ import annotations

import asyncio
import time

import httpx

from app.metrics import LOOP_LAG
from app.runtime import watch_event_loop
from tests.api.wsclient import running_server, server_settings


def lag_counts() -> tuple[float, float]:
    """(observations so far, observations of more than 10 ms)."""
    samples = {(s.name, s.labels.get("le")): s.value for s in LOOP_LAG.collect()[0].samples}
    count = samples[("threethirteen_event_loop_lag_seconds_count", None)]
    return count, count - samples[("threethirteen_event_loop_lag_seconds_bucket", "0.01")]


async def test_a_held_loop_is_recorded_as_lag() -> None:
    before, late_before = lag_counts()
    watch = asyncio.create_task(watch_event_loop(every=0.02))
    try:
        await asyncio.sleep(0.05)
        time.sleep(0.06)  # a callback that holds the loop for 60 ms
        await asyncio.sleep(0.05)
    finally:
        watch.cancel()
    after, late_after = lag_counts()
    assert after - before >= 2
    assert late_after - late_before >= 1  # the held loop woke the watch at least 10 ms late


def test_the_server_serves_its_event_loop_lag(sqlite_url: str) -> None:
    with running_server(server_settings(sqlite_url)) as base:
        time.sleep(0.3)  # a few 100 ms ticks
        text = httpx.get(f"{base}/metrics", timeout=10).text
    assert "threethirteen_event_loop_lag_seconds_count" in text
