"""Where a real server's CPU goes, by layer: read a py-spy "raw" profile (collapsed stacks) of the server
and print each layer's share of the main thread's busy samples.

    py-spy record -p PID -d 30 -r 500 --nonblocking --threads -f raw -o server.txt
    python benchmarks/profile_layers.py server.txt

``benchmarks/load.py --profile S`` records such a profile of the server for S seconds of its window and
prints this table itself. A sample belongs to the layer of its innermost frame that names one (the code
the thread was running, not who called it); frames of the event loop's own C code show as "event loop".
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

# (layer, markers in a frame's file path), checked in order for each frame from the innermost outwards.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # native frames (py-spy --native), the innermost first
    ("system calls: socket writes", ("write (libc", "writev (libc", "sendmsg (libc", "send (libc")),
    ("system calls: socket reads", ("read (libc", "recv (libc", "recvmsg (libc")),
    ("system calls: waiting in epoll", ("epoll_wait", "epoll_pwait")),
    ("system calls: getpid (asyncio's running-loop check)", ("getpid (libc",)),
    ("handing work to a thread (SQLite)", ("sem_post", "pthread_cond", "futex", "syscall (libc")),
    ("cycle collector", ("gc_collect", "gc_collect_main", "collect_generations")),
    ("deflate (zlib)", ("libz.so",)),
    ("engine (rules, solver)", ("app/engine/",)),
    ("table commands", ("app/table/",)),
    ("render and encode", ("app/rooms/render.py", "app/protocol/", "orjson", "pydantic")),
    ("store and commit", ("app/store/", "sqlite3", "aiosqlite", "asyncpg", "sqlalchemy")),
    ("WebSocket frames and deflate", ("websockets/", "zlib", "app/api/ws_deflate.py")),
    ("room (lock, presence, queues)", ("app/rooms/",)),
    ("socket endpoint and ASGI", ("app/api/", "uvicorn/", "starlette/", "fastapi/", "anyio/")),
    ("metrics and logs", ("prometheus_client", "logging/", "app/metrics.py", "app/logs.py")),
    ("asyncio", ("asyncio/",)),
    ("app (other)", ("app/",)),
)
EVENT_LOOP = "event loop (uvloop, socket calls)"


def layer_of(stack: list[str]) -> str:
    for frame in reversed(stack):  # innermost first
        if frame.startswith("Runner.run (asyncio/"):
            break  # below the loop's own C code: nothing here named the layer
        for name, markers in LAYERS:
            if any(marker in frame for marker in markers):
                return name
    return EVENT_LOOP if any("run_forever" in f or "uvloop" in f for f in stack) else "other"


def layers(text: str, thread: str = "MainThread") -> Counter[str]:
    """Busy samples per layer of one thread (py-spy --threads names it in each stack's first frame)."""
    counts: Counter[str] = Counter()
    for line in text.splitlines():
        stack_text, _, count = line.rpartition(" ")
        if not stack_text or not count.isdigit():
            continue
        stack = stack_text.split(";")
        if thread and thread not in stack[0]:
            continue
        counts[layer_of(stack[1:] if stack[0].startswith("thread") else stack)] += int(count)
    return counts


def report(counts: Counter[str], moves: int | None = None, seconds_per_sample: float | None = None) -> str:
    total = sum(counts.values()) or 1
    lines = [f"{'layer':<34} {'share':>6}" + ("  ms per move" if moves and seconds_per_sample else "")]
    for name, count in counts.most_common():
        line = f"{name:<34} {100 * count / total:5.1f}%"
        if moves and seconds_per_sample:
            line += f"  {1000 * count * seconds_per_sample / moves:.3f}"
        lines.append(line)
    return "\n".join(lines)


def main() -> None:
    text = Path(sys.argv[1]).read_text()
    print(report(layers(text)))


if __name__ == "__main__":
    main()
