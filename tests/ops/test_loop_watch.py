"""The runtime's watches: a callback that holds the loop shows up in
``threethirteen_event_loop_lag_seconds`` (``app.runtime.watch_event_loop``), which a running server keeps
up to date on /metrics; each run of the cycle collector in ``threethirteen_gc_pause_seconds``."""

from __future__ import annotations

import asyncio
import gc
import re
import time

import httpx

from app import runtime
from app.metrics import GC_PAUSES, LOOP_LAG
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


def test_the_server_keeps_its_event_loop_lag_on_metrics(sqlite_url: str) -> None:
    def count(base: str) -> float:
        text = httpx.get(f"{base}/metrics", timeout=10).text
        found = re.search(r"^threethirteen_event_loop_lag_seconds_count (\S+)$", text, re.MULTILINE)
        assert found is not None, text[-2000:]
        return float(found.group(1))

    with running_server(server_settings(sqlite_url)) as base:
        first = count(base)
        time.sleep(0.5)  # a few of its 100 ms ticks
        assert count(base) >= first + 2  # the server's own watch is running


def test_each_collection_is_timed_by_generation() -> None:
    def runs() -> float:
        samples = GC_PAUSES.collect()[0].samples
        return sum(s.value for s in samples if s.name.endswith("_count") and s.labels["generation"] == "2")

    before = runs()
    runtime.time_collections()
    runtime.time_collections()  # once, however often asked
    try:
        gc.collect()
    finally:
        gc.callbacks.remove(runtime._time_collection)
    assert runtime._time_collection not in gc.callbacks
    assert runs() == before + 1
