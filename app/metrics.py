"""Prometheus metrics: actions applied, action latency, errors by code, pushes by outcome, and live tables
and sockets."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from prometheus_client import CollectorRegistry, Counter, Histogram, disable_created_metrics, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

disable_created_metrics()  # type: ignore[no-untyped-call]  # the *_created series only add noise to a small dashboard

# Process-wide counters (registry=None: each app's /metrics registry adds them; several apps can share a
# process in tests). The live gauges are read from the app's own rooms when scraped.
ACTIONS_APPLIED = Counter(
    "threethirteen_actions_applied", "Game actions applied and committed, by kind", ["kind"], registry=None
)
ACTION_LATENCY = Histogram(
    "threethirteen_action_latency_seconds",
    "From a seat's action message reaching its room to its ack (lock wait, engine, commit)",
    # fine below 10 ms, where a move at human pace lands (benchmarks/load.py reads its p50 and p99 here)
    buckets=(
        0.0005,
        0.001,
        0.0015,
        0.002,
        0.003,
        0.005,
        0.0075,
        0.01,
        0.025,
        0.05,
        0.1,
        0.25,
        0.5,
        1.0,
        2.5,
        5.0,
    ),
    registry=None,
)
ROOMS_EVICTED = Counter(
    "threethirteen_rooms_evicted", "Idle rooms dropped from memory (they reload on demand)", registry=None
)
LOOP_LAG = Histogram(
    "threethirteen_event_loop_lag_seconds",
    "How late the event loop ran a timer due every 100 ms: work that held up every table of the process",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0),
    registry=None,
)
GC_PAUSES = Histogram(
    "threethirteen_gc_pause_seconds",
    "How long each run of the cycle collector held the process, by generation",
    ["generation"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0),
    registry=None,
)
ERRORS = Counter("threethirteen_errors", "Errors answered to clients, by wire code", ["code"], registry=None)
PUSHES = Counter(
    "threethirteen_pushes",
    "Web Push notifications, by outcome: sent, gone (the subscription was dropped), refused (an address the "
    "server may not reach), failed, dropped (the queue was full), over_budget, error",
    ["outcome"],
    registry=None,
)


_APPLIED: dict[str, Counter] = {}  # one child per kind: ``labels`` looks its argument up on every call


def count_applied(kind: str) -> None:
    """Count one committed game action of ``kind`` (draw, discard, go_out): on every move."""
    child = _APPLIED.get(kind)
    if child is None:
        child = _APPLIED[kind] = ACTIONS_APPLIED.labels(kind=kind)
    child.inc()


def count_error(code: str) -> None:
    """Count one error answered to a client (REST or WebSocket)."""
    ERRORS.labels(code=code).inc()


def count_push(outcome: str) -> None:
    """Count one Web Push notification's outcome (``PUSHES``)."""
    PUSHES.labels(outcome=outcome).inc()


CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class LiveCollector(Collector):
    """Open tables and sockets, read at scrape time from ``live()`` -> (tables, sockets)."""

    def __init__(self, live: Callable[[], tuple[int, int]]) -> None:
        self.live = live

    def collect(self) -> Iterator[Metric]:
        tables, sockets = self.live()
        yield GaugeMetricFamily("threethirteen_open_tables", "Rooms loaded in this process", value=tables)
        yield GaugeMetricFamily("threethirteen_open_sockets", "WebSockets attached to a room", value=sockets)


def app_registry(live: Callable[[], tuple[int, int]]) -> CollectorRegistry:
    registry = CollectorRegistry(auto_describe=True)
    collectors = (ACTIONS_APPLIED, ACTION_LATENCY, LOOP_LAG, GC_PAUSES, ERRORS, ROOMS_EVICTED, PUSHES)
    for collector in (*collectors, LiveCollector(live)):
        registry.register(collector)
    return registry


def render(registry: CollectorRegistry) -> bytes:
    return generate_latest(registry)
