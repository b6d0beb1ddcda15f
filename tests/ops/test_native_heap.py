"""glibc's heap: free pages go back to the system on a trim, and the settings leave it alone when told."""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import os

import pytest

from app import native_heap
from app.config import Settings
from tests.security.deflate_flood import rss_kib

glibc = pytest.mark.skipif(native_heap._glibc() is None, reason="not glibc")


@glibc
def test_a_trim_gives_freed_pages_back() -> None:
    """Memory freed below a chunk still in use stays resident (glibc gives back only the top of its heap by
    itself) until ``trim``: the creep the soak measured, and what ``MALLOC_TRIM_SECONDS`` undoes."""
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    libc.malloc.argtypes, libc.malloc.restype = [ctypes.c_size_t], ctypes.c_void_p
    libc.free.argtypes = [ctypes.c_void_p]
    chunks = [libc.malloc(8192) for _ in range(8192)]  # 64 MiB in the heap (under the mmap threshold)
    for chunk in chunks:
        ctypes.memset(chunk, 1, 8192)  # resident
    pinned = libc.malloc(8192)  # above them: the heap's top stays in use
    for chunk in chunks:
        libc.free(chunk)
    try:
        before = rss_kib(os.getpid())["VmRSS"]
        assert native_heap.trim()
        given_back = before - rss_kib(os.getpid())["VmRSS"]
        assert given_back > 32 * 1024, f"only {given_back} KiB of 64 MiB freed left the process on a trim"
    finally:
        libc.free(pinned)


def test_the_environment_variable_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    assert not native_heap.limit_arenas(2)


def test_zero_leaves_glibc_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MALLOC_ARENA_MAX", raising=False)
    assert not native_heap.limit_arenas(0)
    asyncio.run(asyncio.wait_for(native_heap.trim_every(0), 1))  # returns at once: no trimming task


def test_the_shipped_settings() -> None:
    settings = Settings(_env_file=None)
    assert (settings.malloc_arenas, settings.malloc_trim_seconds) == (2, 60)
