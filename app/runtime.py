"""Tuning of the Python runtime for a long-running server: the cycle collector; and a watch on the event
loop (how late it runs a timer: a callback that holds the loop delays every table of the process).

A server holding a thousand sockets keeps a few hundred thousand long-lived objects (each socket's chain of
ASGI coroutines, its protocol and buffers, the tables' states). A run of CPython's cycle collector walks
every object of the generations it collects while the whole process waits, so its pause grows with what
has piled up there: with a large young generation (50,000) a young run held the loop 25-100 ms, above all
when many sockets connect at once (1,000 after a restart: 47,000-75,000 new long-lived objects), and each
older run walks everything that survived the young ones.

The collector here keeps every run small (``YoungCollector``):

- what the app built at start-up is frozen (``gc.freeze()``: a permanent generation no run walks);
- the young generation is collected after ``YOUNG`` new objects, and whatever survives a run is frozen at
  once: survivors of a run are nearly all long-lived (a socket, a table, a game's acks), so no run ever walks
  them again, and every run walks at most about ``YOUNG`` objects (a few milliseconds) however many sockets
  the process holds or how fast they arrive;
- an object frozen alive that later dies is still freed by reference counting at once. Only garbage that
  is a *cycle* of objects frozen while alive would stay: a **deep clean** (unfreeze, collect everything,
  freeze again) runs when the frozen objects have grown by half since the last one, and at most once every
  ``DEEP_CLEAN_SECONDS``, from the event loop (never inside a collection). It is the one long pause left
  (about 1 ms per thousand objects), rare by design; ``threethirteen_gc_pause_seconds`` counts it as
  generation 2.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Callable
from typing import Any

from app.metrics import GC_PAUSES, LOOP_LAG

log = logging.getLogger(__name__)

YOUNG = 10_000  # objects; CPython's default is 700 (with 10 and 10 for the older generations)
DEEP_CLEAN_SECONDS = 3600.0
DEEP_CLEAN_GROWTH = 1.5  # frozen objects now against just after the last deep clean
COUNT_AGAIN_SECONDS = 60.0


class YoungCollector:
    """The cycle collector's policy (see the module's docstring). One per process: ``install`` once."""

    def __init__(
        self,
        *,
        young: int = YOUNG,
        deep_clean_seconds: float = DEEP_CLEAN_SECONDS,
        growth: float = DEEP_CLEAN_GROWTH,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.young, self.deep_clean_seconds = young, deep_clean_seconds
        self.growth, self.clock = growth, clock
        self.installed = False
        self.frozen_after_clean = 0
        self.cleaned_at = 0.0
        self.deep_cleans = 0
        self._started = 0.0
        self._count_again = 0.0  # when the frozen objects may be counted again (deep_clean_due)

    def install(self) -> None:
        """Collect what start-up left behind, freeze the survivors, set the young threshold, and from now
        on freeze what survives each run and time every run (``threethirteen_gc_pause_seconds``)."""
        gc.collect()
        gc.freeze()
        gc.set_threshold(self.young, 10, 10)
        self.frozen_after_clean, self.cleaned_at = gc.get_freeze_count(), self.clock()
        if self._on_collection not in gc.callbacks:
            gc.callbacks.append(self._on_collection)
        self.installed = True

    def uninstall(self) -> None:
        """Undo ``install`` (for tests): every object back in the generations, CPython's thresholds."""
        if self._on_collection in gc.callbacks:
            gc.callbacks.remove(self._on_collection)
        gc.unfreeze()
        gc.set_threshold(700, 10, 10)
        self.installed = False

    def _on_collection(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            return
        GC_PAUSES.labels(generation=str(info["generation"])).observe(time.perf_counter() - self._started)
        gc.freeze()  # the survivors: never walked again (the collection is over; its lists are settled)

    def deep_clean_due(self) -> bool:
        """Whether the deep clean is due: the last one is old enough and the frozen objects have grown by
        ``growth``. Counting them walks the whole permanent generation (a few ms at a million objects), so
        it is counted only once the time has come, and then at most once a minute."""
        now = self.clock()
        if not self.installed or now - self.cleaned_at < self.deep_clean_seconds or now < self._count_again:
            return False
        self._count_again = now + COUNT_AGAIN_SECONDS
        return gc.get_freeze_count() >= self.growth * max(1, self.frozen_after_clean)

    def deep_clean(self) -> int:
        """Unfreeze, collect every generation (frozen cycles that died are freed), freeze again. The number
        of unreachable objects found."""
        started = time.perf_counter()
        gc.unfreeze()
        found = gc.collect()
        gc.freeze()
        self.frozen_after_clean, self.cleaned_at = gc.get_freeze_count(), self.clock()
        self.deep_cleans += 1
        log.info(
            "cycle collector: deep clean in %.0f ms, %d unreachable objects freed, %d objects kept",
            1000 * (time.perf_counter() - started), found, self.frozen_after_clean,
        )  # fmt: skip
        return found


COLLECTOR = YoungCollector()


def tune_gc() -> None:
    """The process's collector policy (``YoungCollector``), once the app is built."""
    COLLECTOR.install()


def time_collections() -> None:
    """Time every run of the cycle collector from now on (once, however often called), without changing
    the collector's policy (a server run in tests)."""
    if _time_collection not in gc.callbacks:
        gc.callbacks.append(_time_collection)


_started = [0.0]


def _time_collection(phase: str, info: dict[str, Any]) -> None:
    if phase == "start":
        _started[0] = time.perf_counter()
    else:
        GC_PAUSES.labels(generation=str(info["generation"])).observe(time.perf_counter() - _started[0])


LOOP_WATCH_SECONDS = 0.1


async def watch_event_loop(every: float = LOOP_WATCH_SECONDS, collector: YoungCollector = COLLECTOR) -> None:
    """Until cancelled: sleep ``every`` seconds and record how much later than that the loop woke us
    (``threethirteen_event_loop_lag_seconds``); run the collector's deep clean when it is due."""
    loop = asyncio.get_running_loop()
    while True:
        asked = loop.time()
        await asyncio.sleep(every)
        LOOP_LAG.observe(max(0.0, loop.time() - asked - every))
        if collector.deep_clean_due():
            collector.deep_clean()
