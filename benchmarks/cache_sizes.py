"""What the engine's bounded caches buy at a given size: hit rate, CPU per move and memory, by ``maxsize``.

    python benchmarks/cache_sizes.py                         # 20 tables, as benchmarks/soak.py plays
    python benchmarks/cache_sizes.py --tables 250 --moves 100000   # a full server (1,000 sockets)

Plays ``--tables`` games at once in this process, interleaved at random one move at a time as a server's
tables are (two to four people, every other table with a bot too, as ``benchmarks/soak.py`` seats them; a
person draws from the stock, goes out when it can, else throws the dearest card of its deadwood; a finished
game starts again). After each move it builds what the server builds: every seat's view and a watcher's
(``view_parts``). Every call of each ``functools.lru_cache`` of the engine is recorded (its key), and one
pass over the record gives the hit rate of that cache at *every* size (an LRU cache of size n hits exactly
the calls whose key was last used fewer than n distinct keys ago: the LRU stack distance). Prints, per cache
and size: hit rate, misses per move, and the CPU those misses cost per move (misses x the median CPU of one
uncached call, timed on the same keys), and the memory an entry holds (traced bytes of the full cache over
its entries). The first ``--warmup`` moves are played but not counted.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.engine import Options, apply, bots, frames, game, legal_actions, new_game, views  # noqa: E402
from app.engine.game import Discard, Draw, GameState, GoOut  # noqa: E402

CACHES: tuple[tuple[Any, str], ...] = (
    (views, "_arrangement"),
    (bots, "_pen"),
    (bots, "_after"),
    (bots, "_deadwood"),
    (game, "_go_out_cards"),
    (game, "_to_discard"),
    (frames, "_arranged"),
)
SIZES = (128, 256, 512, 1024, 2048, 4096, 8192, 16384)
PEOPLE = (2, 3, 4, 2)  # as benchmarks/soak.py
BOT_LEVELS = ("easy", "normal", "hard")


class Recorder:
    """Stands in for one cached function: records each call's key (and the latest distinct arguments), then
    calls the cached function."""

    def __init__(self, cached: Any) -> None:
        self.cached = cached
        self.keys: list[int] = []
        self.recent: dict[tuple[Hashable, ...], None] = {}
        self.recording = False

    def __call__(self, *args: Hashable) -> Any:
        if self.recording:
            self.keys.append(hash(args))
            self.recent[args] = None
            if len(self.recent) > 4096:
                del self.recent[next(iter(self.recent))]
        return self.cached(*args)


def hit_rates(keys: list[int], sizes: tuple[int, ...]) -> dict[int, int]:
    """Hits of an LRU cache of each size over the calls ``keys`` (stack distances, with a Fenwick tree)."""
    n = len(keys)
    tree = [0] * (n + 1)

    def add(i: int, v: int) -> None:
        i += 1
        while i <= n:
            tree[i] += v
            i += i & -i

    def total(i: int) -> int:  # sum of positions < i
        s = 0
        while i > 0:
            s += tree[i]
            i -= i & -i
        return s

    last: dict[int, int] = {}
    hits = dict.fromkeys(sizes, 0)
    for t, key in enumerate(keys):
        before = last.get(key)
        if before is not None:
            distance = total(t) - total(before + 1)  # distinct keys used since (each counted at its last use)
            for size in sizes:
                if distance < size:
                    hits[size] += 1
            add(before, -1)
        add(t, 1)
        last[key] = t
    return hits


def person(state: GameState, seat: int) -> Any:
    actions = legal_actions(state, seat)
    if Draw("stock") in actions:
        return Draw("stock")
    go_outs = [a for a in actions if isinstance(a, GoOut)]
    if go_outs:
        return go_outs[0]
    view = views.view_for(state, seat)
    deadwood = (view.arrangement.deadwood if view.arrangement else None) or view.hand or []
    options = state.options
    cards = [a.card for a in actions if isinstance(a, Discard)]
    by_text = {str(c): c for c in cards}
    return Discard(max((by_text[t] for t in deadwood if t in by_text), key=options.points, default=cards[0]))


def play(tables: int, moves: int, warmup: int, seed: int, recorders: list[Recorder]) -> int:
    rng = random.Random(seed)
    seats: list[list[str | None]] = []
    states: list[GameState] = []
    for i in range(tables):
        people: list[str | None] = [None] * PEOPLE[i % 4]
        seats.append(people + ([BOT_LEVELS[(i // 2) % 3]] if i % 2 == 0 else []))
        states.append(new_game(len(seats[i]), Options(), seed=seed * 1000 + i))
    games = tables
    for move in range(warmup + moves):
        if move == warmup:
            for recorder in recorders:
                recorder.recording = True
        i = rng.randrange(tables)
        state = states[i]
        seat = state.turn
        level = seats[i][seat]
        action = person(state, seat) if level is None else bots.choose_action(state, seat, level, seed=games)
        state, _ = apply(state, seat, action)
        views.view_parts(state, [*range(state.players), None])
        if state.is_over:
            games += 1
            state = new_game(len(seats[i]), Options(), seed=seed * 1000 + games)
        states[i] = state
    return games


def miss_cost(cached: Any, sample: list[tuple[Hashable, ...]]) -> float:
    """Median CPU seconds of one uncached call over ``sample`` argument tuples."""
    plain: Callable[..., Any] = cached.__wrapped__
    times = []
    for args in sample:
        start = time.process_time()
        for _ in range(5):
            plain(*args)
        times.append((time.process_time() - start) / 5)
    return statistics.median(times) if times else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--moves", type=int, default=30_000, help="moves counted")
    parser.add_argument("--warmup", type=int, default=3_000, help="moves played first, not counted")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    recorders = []
    for module, name in CACHES:
        recorder = Recorder(getattr(module, name))
        setattr(module, name, recorder)
        recorders.append(recorder)
    started = time.process_time()
    games = play(args.tables, args.moves, args.warmup, args.seed, recorders)
    print(
        f"{args.tables} tables, {args.moves:,} moves counted after {args.warmup:,}, "
        f"{games - args.tables} games finished, {time.process_time() - started:.0f} s CPU"
    )
    print(
        "cache | calls/move | entries (maxsize) | bytes/entry | "
        + " | ".join(f"hit% @{s}" for s in SIZES)
        + " | CPU of a miss (ms) | CPU ms/move more than at its maxsize, @"
        + ",".join(str(s) for s in SIZES)
    )
    for (module, name), recorder in zip(CACHES, recorders, strict=True):
        cached = recorder.cached
        setattr(module, name, cached)
        calls = len(recorder.keys)
        if not calls:
            print(f"{module.__name__}.{name} | 0 calls")
            continue
        info = cached.cache_info()
        now = info.maxsize or 0
        hits = hit_rates(recorder.keys, tuple(sorted({*SIZES, now})))
        sample = list(recorder.recent)
        cost = miss_cost(cached, sample[-200:])
        extra = [(hits[now] - hits[s]) / args.moves * cost * 1000 for s in SIZES]
        print(
            f"{module.__name__}.{name} | {calls / args.moves:.2f} | {info.currsize} ({now}) | "
            f"{entry_bytes(cached, sample[-2048:]):.0f} | "
            + " | ".join(f"{100 * hits[s] / calls:.1f}" for s in SIZES)
            + f" | {1000 * cost:.3f} | "
            + " ".join(f"{e:+.4f}" for e in extra)
        )


def entry_bytes(cached: Any, sample: list[tuple[Hashable, ...]]) -> float:
    """Traced bytes an entry holds: ``cached`` emptied, then filled from fresh copies of ``sample``'s
    arguments (a hand is a new tuple each time, as the server makes it) that only the cache keeps."""
    if not sample:
        return 0.0
    cached.cache_clear()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for args in sample:
        cached(*(tuple(a) if isinstance(a, tuple) else a for a in args))
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    return held / max(1, cached.cache_info().currsize)


if __name__ == "__main__":
    main()
