"""The ``sitecustomize`` of a server started by ``benchmarks/soak.py --trace-memory`` (copied there).

Python imports ``sitecustomize`` at start-up from the first directory of ``PYTHONPATH`` that has one, so the
soak copies this file into a temporary directory it puts first there: the app's code is not changed. When
``SOAK_TRACE_DIR`` is set, this starts ``tracemalloc`` with ``SOAK_TRACE_FRAMES`` frames (25 unless told) and,
on each SIGUSR1, runs a full collection and writes to that directory:

- ``snapshot-<n>.pickle``: a ``tracemalloc`` snapshot (``Snapshot.load`` reads it);
- ``figures-<n>.json``: what a snapshot does not show: the memory ``tracemalloc`` traces, SQLite's own heap
  (``sqlite3_memory_used``: page caches, schemas, prepared statements; not traced, since SQLite allocates with
  ``malloc``), glibc's heap in use and in its free lists (``mallinfo2``), and the live objects by type.

With ``SOAK_TRACE_MODE=probe`` (``soak.py --probe-memory``) nothing is traced and no snapshot is taken:
each SIGUSR1 writes the figures only (no ``traced``), with Python's own allocator too (``pymalloc``: its
arenas and the bytes of its blocks in use, outside glibc's heap): a run at full speed that still says
where its resident memory is. In both modes ``sqlite3.connect`` is wrapped so that every connection the
server opens is of a subclass that can be weakly referenced (nothing else changes), and the figures add,
over the open connections, their page caches, schemas and prepared statements (``sqlite3_db_status``).

The JSON file is written last, under a temporary name then renamed, so its presence means both are complete.
The app's collector freezes what survives each run (``app/runtime.py``), and ``gc.get_objects`` does not list
frozen objects: the live objects are counted with the permanent generation unfrozen for the count (the
collector disabled meanwhile, so nothing is collected), then frozen again.

On SIGUSR2 (the soak sends it once, after the last snapshot) it takes a **census of the cyclic garbage**:
what a full collection of every generation, frozen ones included, would free (``census.json``: the
unreachable objects by type and by what they are, a frame's code or a task's coroutine, and the traced
memory before and after they are freed). That collection frees them: the process is not the same after it.
Each snapshot's figures also say how full every ``lru_cache`` of the app is (bounded by design), and the
census measures what each of the app's caches holds by emptying it (``_cache_bytes``).
Only the process that has the directory in its environment traces (the migrations' child process traces
too, harmlessly: it never gets the signal).
"""

from __future__ import annotations

import asyncio
import collections
import ctypes
import gc
import json
import os
import signal
import sys
import tracemalloc
import types
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


def _sqlite_heap() -> dict[str, int]:
    """SQLite's heap now and at its peak, in bytes (of the library ``_sqlite3`` uses), or {}."""
    try:
        import _sqlite3

        library = ctypes.CDLL(_sqlite3.__file__)
        used, peak = library.sqlite3_memory_used, library.sqlite3_memory_highwater
        used.restype = peak.restype = ctypes.c_int64
        peak.argtypes = [ctypes.c_int]
        return {"sqlite_memory_used": int(used()), "sqlite_memory_highwater": int(peak(0))}
    except (ImportError, OSError, AttributeError):
        return {}


_CONNECTIONS: weakref.WeakSet[Any] = weakref.WeakSet()  # every sqlite3 connection the server opened
_DB_STATUS = {"sqlite_cache_used": 1, "sqlite_schema_used": 2, "sqlite_stmt_used": 3}  # SQLITE_DBSTATUS_*


def _watch_sqlite_connections() -> None:
    """Make ``sqlite3.connect`` (aiosqlite's and the move writer's) return connections of a subclass that
    can be weakly referenced, and keep them in ``_CONNECTIONS``: the figures then say each one's page cache
    and prepared statements. The subclass adds nothing else."""
    import sqlite3

    class Watched(sqlite3.Connection):
        pass

    connect = sqlite3.connect

    def watched_connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        kwargs.setdefault("factory", Watched)
        connection: sqlite3.Connection = connect(*args, **kwargs)
        if isinstance(connection, Watched):
            _CONNECTIONS.add(connection)
        return connection

    sqlite3.connect = watched_connect  # type: ignore[assignment]


def _sqlite_connections() -> dict[str, int]:
    """The open sqlite3 connections, and the bytes of their page caches, schemas and prepared statements
    (``sqlite3_db_status``; the ``sqlite3 *`` is the first field after the object's header), or {}."""
    try:
        import _sqlite3

        status = ctypes.CDLL(_sqlite3.__file__).sqlite3_db_status
    except (ImportError, OSError, AttributeError):
        return {}
    status.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
    found = dict.fromkeys(("sqlite_connections", *_DB_STATUS), 0)
    now, most = ctypes.c_int(), ctypes.c_int()
    for connection in list(_CONNECTIONS):
        db = ctypes.c_void_p.from_address(id(connection) + object.__basicsize__).value
        if not db:  # closed
            continue
        found["sqlite_connections"] += 1
        for name, op in _DB_STATUS.items():
            if status(db, op, ctypes.byref(now), ctypes.byref(most), 0) == 0:
                found[name] += now.value
    return found


def _malloc_heap() -> dict[str, int]:
    """glibc's main heap: bytes in use, bytes free in its lists, mmapped chunks (``mallinfo2``), or {}."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallinfo2.restype = _MallInfo2
        info = libc.mallinfo2()
    except (OSError, AttributeError):
        return {}
    return {
        "malloc_arena": info.arena,
        "malloc_in_use": info.uordblks,
        "malloc_free": info.fordblks,
        "malloc_mmapped": info.hblkhd,
    }


@contextmanager
def _collector_off() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _objects_by_type() -> collections.Counter[str]:
    """Every object the collector tracks, frozen ones too, by type (nothing collected meanwhile)."""
    with _collector_off():
        frozen = gc.get_freeze_count()
        gc.unfreeze()
        try:
            return collections.Counter(type(o).__qualname__ for o in gc.get_objects())
        finally:
            if frozen:
                gc.freeze()


def _pymalloc() -> dict[str, int]:
    """Python's own allocator (objects of up to 512 bytes, in 256 KiB arenas it maps itself, outside
    ``malloc``): its arenas and the bytes in its blocks in use, from ``sys._debugmallocstats`` (which
    writes to the C stderr: read back through a temporary file), or {}."""
    import tempfile

    with tempfile.TemporaryFile() as out:
        saved = os.dup(2)
        try:
            os.dup2(out.fileno(), 2)
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        out.seek(0)
        text = out.read().decode(errors="replace")
    found: dict[str, int] = {}
    for line in text.splitlines():
        name, _, value = line.partition("=")
        name, value = name.strip(" #"), value.strip().replace(",", "")
        if name == "arenas allocated current" and value.isdigit():
            found["pymalloc_arenas"] = int(value)
        elif name.startswith("bytes in allocated blocks") and value.isdigit():
            found["pymalloc_in_use"] = int(value)
        elif name == "Total" and value.isdigit():  # the first: the arenas' (the second: the arena map's)
            found.setdefault("pymalloc_total", int(value))
    return found


def _dump(directory: Path) -> None:
    gc.collect()  # the young generations only matter: what is frozen stays (as in the app)
    number = len(list(directory.glob("figures-*.json")))
    traced = peak = overhead = 0
    if tracemalloc.is_tracing():
        tracemalloc.take_snapshot().dump(str(directory / f"snapshot-{number}.pickle"))
        traced, peak = tracemalloc.get_traced_memory()
        overhead = tracemalloc.get_tracemalloc_memory()
    by_type = _objects_by_type()
    figures: dict[str, Any] = {
        "traced": traced,
        "traced_peak": peak,
        "tracemalloc_overhead": overhead,
        "frozen_objects": gc.get_freeze_count(),
        "objects_total": sum(by_type.values()),
        "allocated_blocks": sys.getallocatedblocks(),
        **_sqlite_heap(),
        **_sqlite_connections(),
        **_malloc_heap(),
        **_pymalloc(),
        "objects": dict(by_type.most_common(400)),
        "caches": _caches(),
    }
    partial = directory / f"figures-{number}.json.part"
    partial.write_text(json.dumps(figures))
    partial.rename(directory / f"figures-{number}.json")


def _detail(obj: object) -> str:
    """What ``obj`` is, closer than its type: a frame's or coroutine's code, a task's coroutine, a function's
    name, an instance's module. (``tracemalloc.get_object_traceback`` cannot say where most objects were
    allocated on Python 3.11: instances with a managed dict, and objects from free lists, have none.)"""
    kind = type(obj).__qualname__
    if isinstance(obj, types.FrameType):
        code = obj.f_code
        return f"frame {code.co_qualname} ({code.co_filename.rsplit('/', 2)[-1]}:{code.co_firstlineno})"
    if isinstance(obj, types.CoroutineType):
        return f"coroutine {obj.cr_code.co_qualname}"
    if isinstance(obj, asyncio.Task):
        coro = obj.get_coro()
        task_code: types.CodeType | None = getattr(coro, "cr_code", None)
        return f"Task {task_code.co_qualname if task_code is not None else type(coro).__qualname__}"
    if isinstance(obj, types.FunctionType):
        return f"function {obj.__module__}.{obj.__qualname__}"
    if isinstance(obj, BaseException):
        return f"exception {type(obj).__module__}.{kind}"
    return f"{type(obj).__module__}.{kind}"


def _census(directory: Path) -> None:
    """What a full collection, frozen objects included, frees: the objects it freed by type and by what each
    is (counted before and after it: most die as their generator's or coroutine's finalizer breaks their
    cycle, and are never listed as garbage), and the traced memory it freed."""
    with _collector_off():
        frozen = gc.get_freeze_count()
        gc.unfreeze()
        before = collections.Counter(_detail(o) for o in gc.get_objects())
        traced_before = tracemalloc.get_traced_memory()[0]
        found = gc.collect()
        traced_after = tracemalloc.get_traced_memory()[0]
        gc.unfreeze()  # the app's collector froze the survivors again as the collection ended
        after = collections.Counter(_detail(o) for o in gc.get_objects())
        gc.freeze()
    freed = before - after
    held = _cache_bytes()
    census: dict[str, Any] = {
        "frozen_before": frozen,
        "unreachable": found,
        "traced_before": traced_before,
        "traced_after": traced_after,
        "freed_objects": sum(freed.values()),
        "by_detail": dict(freed.most_common(60)),
        "caches_held": held,
    }
    partial = directory / "census.json.part"
    partial.write_text(json.dumps(census))
    partial.rename(directory / "census.json")


DICT_CACHES = ("app.engine.game._RESULT_DICTS", "app.engine.views._RESULTS_CACHE")  # bounded by a clear


def _cache_bytes() -> dict[str, list[int]]:
    """What each of the app's caches holds: [entries, traced bytes freed by emptying it] (they are emptied:
    after the census, as the process is not the same anyway). The lru caches and the module-level dicts
    that clear themselves past a size; the record cache of finished games (``RECORD_CACHE_BYTES``) says
    itself how many bytes it holds."""
    held: dict[str, list[int]] = {}
    with _collector_off():
        gc.unfreeze()
        try:
            objects = gc.get_objects()
            lru = [o for o in objects if type(o).__name__ == "_lru_cache_wrapper"]
            lru = [o for o in lru if o.__module__.startswith("app.")]
            records = [o for o in objects if type(o).__name__ == "RecordCache"]
            del objects
            for cache in lru:
                entries, before = cache.cache_info().currsize, tracemalloc.get_traced_memory()[0]
                cache.cache_clear()
                gc.collect()
                name = f"{cache.__module__}.{cache.__qualname__}"
                held[name] = [entries, before - tracemalloc.get_traced_memory()[0]]
            for dotted in DICT_CACHES:
                module, _, name = dotted.rpartition(".")
                found = getattr(sys.modules.get(module), name, None)
                if isinstance(found, dict):
                    entries, before = len(found), tracemalloc.get_traced_memory()[0]
                    found.clear()
                    gc.collect()
                    held[dotted] = [entries, before - tracemalloc.get_traced_memory()[0]]
            for number, record_cache in enumerate(records):
                held[f"app.api.record_cache.RecordCache#{number}"] = [
                    len(record_cache._items),
                    record_cache.bytes_held,
                ]
        finally:
            gc.freeze()
    return held


def _caches() -> dict[str, list[int]]:
    """Every ``functools.lru_cache`` of the project's code: [entries, most entries]."""
    found: dict[str, list[int]] = {}
    with _collector_off():
        frozen = gc.get_freeze_count()
        gc.unfreeze()
        try:
            for obj in gc.get_objects():
                if type(obj).__name__ == "_lru_cache_wrapper" and obj.__module__.startswith("app."):
                    info = obj.cache_info()
                    found[f"{obj.__module__}.{obj.__qualname__}"] = [info.currsize, info.maxsize or 0]
        finally:
            if frozen:
                gc.freeze()
    return found


def _install() -> None:
    where = os.environ.get("SOAK_TRACE_DIR")
    if not where:
        return
    directory = Path(where)
    _watch_sqlite_connections()
    if os.environ.get("SOAK_TRACE_MODE") != "probe":  # probe: the figures only, nothing traced
        tracemalloc.start(int(os.environ.get("SOAK_TRACE_FRAMES", "25")))

    def on_signal(signum: int, frame: FrameType | None) -> None:
        _dump(directory)

    def on_census(signum: int, frame: FrameType | None) -> None:
        _census(directory)

    signal.signal(signal.SIGUSR1, on_signal)
    signal.signal(signal.SIGUSR2, on_census)


_install()
