"""Helpers for tests that show what reference counting alone frees: the cycle collector held off, and a
count of the live objects of a kind."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_off() -> Iterator[None]:
    """Collect once, then keep the cycle collector off for the block: what goes, went by its count."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def alive(kind: type) -> int:
    """How many objects of ``kind`` (or a subclass) are alive."""
    return sum(1 for o in gc.get_objects() if issubclass(type(o), kind))
