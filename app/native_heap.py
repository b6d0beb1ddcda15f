"""glibc's heap in a long-running server: fewer arenas, and free pages handed back to the system.

Python keeps objects of up to 512 bytes in its own pools; everything bigger (a socket's buffers, JSON
text, large dicts and lists) and all of SQLite's memory comes from the C library's ``malloc``. glibc gives
each thread that allocates a heap of its own (an *arena*, up to 8 per core), and here every database
connection is a thread (aiosqlite) as are the event loop's helpers, so freed memory is spread over a dozen
heaps that rarely give pages back: the process's resident memory creeps up under a steady load while
the bytes in use do not (``benchmarks/soak.py``; docs/benchmarks.md, "Issue 39: the 30-minute soak").

- ``limit_arenas``: at most ``MALLOC_ARENAS`` arenas (``mallopt(M_ARENA_MAX)``, as the environment variable
  ``MALLOC_ARENA_MAX`` does; that variable, when set, wins). Called before any thread starts.
- ``trim_every``: every ``MALLOC_TRIM_SECONDS``, ``malloc_trim(0)`` returns the free pages of every arena
  to the system (in a worker thread: the event loop does not wait for it).

Other C libraries (musl in Alpine) have neither call: both do nothing there.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import logging
import os
from functools import cache

log = logging.getLogger(__name__)

M_ARENA_MAX = -8  # glibc's malloc.h


@cache
def _glibc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
        libc.mallopt.argtypes, libc.mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
        libc.malloc_trim.argtypes, libc.malloc_trim.restype = [ctypes.c_size_t], ctypes.c_int
    except (OSError, AttributeError, TypeError):
        return None
    return libc


def limit_arenas(arenas: int) -> bool:
    """At most ``arenas`` malloc arenas from now on (0: glibc's default); whether the limit was set. The
    environment's ``MALLOC_ARENA_MAX``, read by glibc at start, is left to win."""
    if arenas <= 0 or os.environ.get("MALLOC_ARENA_MAX"):
        return False
    libc = _glibc()
    return libc is not None and libc.mallopt(M_ARENA_MAX, arenas) == 1


def trim() -> bool:
    """Give the free pages of every arena back to the system; whether any were."""
    libc = _glibc()
    return libc is not None and libc.malloc_trim(0) == 1


async def trim_every(seconds: float) -> None:
    """Until cancelled: ``trim`` every ``seconds`` (0 or less: never), in a worker thread."""
    if seconds <= 0 or _glibc() is None:
        return
    while True:
        await asyncio.sleep(seconds)
        await asyncio.to_thread(trim)
