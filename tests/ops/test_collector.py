"""The cycle collector's policy (``app.runtime.YoungCollector``): survivors of a run are frozen, so a run
walks only what is new; a cycle that dies after it was frozen is freed by the deep clean, which runs only
when it is due."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from app.runtime import YoungCollector


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def cycle() -> tuple[Node, Node]:
    a, b = Node(), Node()
    a.other, b.other = b, a
    return a, b


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def collector() -> Iterator[tuple[YoungCollector, Clock]]:
    thresholds = gc.get_threshold()
    clock = Clock()
    young = YoungCollector(young=500, deep_clean_seconds=60, growth=1.5, clock=clock)
    young.install()
    try:
        yield young, clock
    finally:
        young.uninstall()
        gc.set_threshold(*thresholds)
        gc.collect()


def test_survivors_of_a_run_are_frozen_and_no_run_walks_them_again(
    collector: tuple[YoungCollector, Clock],
) -> None:
    frozen = gc.get_freeze_count()
    kept = [[i] for i in range(20_000)]  # long-lived objects, more than forty young generations' worth
    assert gc.get_freeze_count() >= frozen + 19_000  # each automatic run froze what it found alive
    assert gc.get_count()[0] <= 500 + 50  # the young generation never holds more than its threshold
    gc.collect(0)
    # Nothing left for a later run to walk: the older generations are empty (a run's survivors are frozen
    # before it returns), and none of the objects made here is in any generation. (The young generation is
    # not asserted empty: the test worker's other threads, xdist's among them, may make objects meanwhile.)
    assert [len(gc.get_objects(generation)) for generation in (1, 2)] == [0, 0]
    walked = {id(obj) for obj in gc.get_objects()}
    assert id(kept) not in walked
    assert not any(id(item) in walked for item in kept)
    del kept


def test_a_cycle_that_dies_young_is_collected_by_the_young_run(
    collector: tuple[YoungCollector, Clock],
) -> None:
    a, _ = cycle()
    gone = weakref.ref(a)
    del a, _
    gc.collect(0)
    assert gone() is None


def test_a_frozen_cycle_that_dies_is_freed_by_the_deep_clean_once_it_is_due(
    collector: tuple[YoungCollector, Clock],
) -> None:
    young, clock = collector
    a, _ = cycle()
    gone = weakref.ref(a)
    gc.collect(0)  # the cycle is alive: frozen
    del a, _
    gc.collect()  # no run walks frozen objects: the dead cycle stays
    assert gone() is not None
    assert not young.deep_clean_due()  # neither old enough nor grown
    clock.now += 61
    assert not young.deep_clean_due()  # old enough, but not grown by half
    kept = [[i] for i in range(int(0.6 * young.frozen_after_clean) + 1000)]
    assert not young.deep_clean_due()  # grown now, but the frozen objects are counted once a minute
    clock.now += 60
    assert young.deep_clean_due()
    assert young.deep_clean() >= 2
    assert gone() is None
    assert not young.deep_clean_due()  # due again only after another minute and more growth
    del kept
