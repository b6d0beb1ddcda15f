"""Tuning of the Python runtime for a long-running server: the cycle collector; and a watch on the event
loop (how late it runs a timer: a callback that holds the loop delays every table of the process).

A server holding a thousand sockets keeps a few hundred thousand long-lived objects (each socket's chain of
ASGI coroutines, queues, the tables' states). With CPython's default thresholds, a full collection walks all
of them every few seconds of play and stops every table for 100-300 ms at a time (measured with
``benchmarks/load.py``). Two standard remedies, applied once at start-up:

- ``gc.freeze()``: the objects that exist once the app is built (modules, classes, functions) move to a
  permanent generation that collections no longer walk;
- a larger young-generation threshold: objects made for one move are freed by reference counting before a
  collection ever sees them, so far fewer reach the old generation and full collections become rare.

Reference counting still frees everything that is not in a cycle at once; the hot paths leave no cycles
behind (see the solver), so this changes only when cycles are looked for, not whether memory is returned.
"""

from __future__ import annotations

import asyncio
import gc
import time
from typing import Any

from app.metrics import GC_PAUSES, LOOP_LAG

GC_THRESHOLDS = (50_000, 20, 100)  # CPython's defaults are (700, 10, 10)


def tune_gc(thresholds: tuple[int, int, int] = GC_THRESHOLDS) -> None:
    """Collect what start-up left behind, freeze the survivors, raise the collection thresholds, and time
    every collection from now on (``threethirteen_gc_pause_seconds``)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*thresholds)
    time_collections()


def time_collections() -> None:
    """Time every run of the cycle collector from now on (once, however often called)."""
    if _time_collection not in gc.callbacks:
        gc.callbacks.append(_time_collection)


_started = [0.0]
_by_generation = [GC_PAUSES.labels(generation=str(g)) for g in range(3)]


def _time_collection(phase: str, info: dict[str, Any]) -> None:
    if phase == "start":
        _started[0] = time.perf_counter()
    else:
        _by_generation[int(info["generation"])].observe(time.perf_counter() - _started[0])


LOOP_WATCH_SECONDS = 0.1


async def watch_event_loop(every: float = LOOP_WATCH_SECONDS) -> None:
    """Until cancelled: sleep ``every`` seconds and record how much later than that the loop woke us
    (``threethirteen_event_loop_lag_seconds``)."""
    loop = asyncio.get_running_loop()
    while True:
        asked = loop.time()
        await asyncio.sleep(every)
        LOOP_LAG.observe(max(0.0, loop.time() - asked - every))
