"""A seeded four-player tournament of the bot levels: hard, normal, easy and random, seats rotated.

    python benchmarks/bots.py --games 1000 --workers 2

prints, per level, the mean points per game and the win rate (ties share the win) with 95% intervals,
the hard-vs-normal points ratio with a paired 95% interval, and the per-move decision time (median,
p99). Game ``i`` uses seed ``--seed + i`` and seats the levels rotated by ``i``, so a run with the same
arguments plays the very same games. ``--set NAME=VALUE`` overrides a tuning constant of the hard bot.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from multiprocessing import Pool
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.engine import apply, bots, new_game  # noqa: E402

LEVELS = ("hard", "normal", "easy", "random")
MAX_MOVES = 20_000  # a guard: no game of four bots comes near it


def _tune(overrides: list[tuple[str, float]]) -> None:
    for name, value in overrides:
        if not hasattr(bots, name):
            raise SystemExit(f"no tuning constant {name} in app.engine.bots")
        setattr(bots, name, type(getattr(bots, name))(value))


def play(game: int, seed: int, overrides: list[tuple[str, float]]) -> dict[str, Any]:
    """One game; returns points, win share and decision times per level."""
    _tune(overrides)
    seats = [LEVELS[(seat + game) % len(LEVELS)] for seat in range(len(LEVELS))]
    state = new_game(len(seats), seed=seed + game)
    times: dict[str, list[float]] = {level: [] for level in LEVELS}  # wall clock
    cpu: dict[str, list[float]] = {level: [] for level in LEVELS}  # this process's CPU time
    while not state.is_over:
        if state.moves > MAX_MOVES:
            raise RuntimeError(f"game {game} does not end")
        seat = state.turn
        level = seats[seat]
        start, start_cpu = time.perf_counter(), time.process_time()
        action = bots.choose_action(state, seat, level, seed=seed + game)  # reads state.round_log
        times[level].append(time.perf_counter() - start)
        cpu[level].append(time.process_time() - start_cpu)
        state, _ = apply(state, seat, action)
    totals = state.totals()
    winners = state.winners()
    return {
        "points": {seats[s]: totals[s] for s in range(len(seats))},
        "wins": {seats[s]: (1 / len(winners) if s in winners else 0.0) for s in range(len(seats))},
        "times": times,
        "cpu": cpu,
        "moves": state.moves,
    }


def _play(args: tuple[int, int, list[tuple[str, float]]]) -> dict[str, Any]:
    return play(*args)


def mean_ci(values: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its normal-approximation 95% interval."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, math.nan
    return mean, 1.96 * statistics.stdev(values) / math.sqrt(len(values))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def _ms(seconds: float) -> str:
    return f"{1000 * seconds:.2f} ms"


def report(results: list[dict[str, Any]], elapsed: float) -> str:
    lines = [
        f"{len(results)} four-player games (seats rotated), {sum(r['moves'] for r in results)} moves, "
        f"{elapsed:.0f} s wall",
        "",
        "| level | points per game (95% CI) | win rate (95% CI) | decision CPU median | CPU p99 "
        "| wall median | wall p99 | decisions |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for level in LEVELS:
        points, half = mean_ci([float(r["points"][level]) for r in results])
        wins, whalf = mean_ci([r["wins"][level] for r in results])
        wall = [t for r in results for t in r["times"][level]]
        cpu = [t for r in results for t in r["cpu"][level]]
        lines.append(
            f"| {level} | {points:.1f} ± {half:.1f} | {100 * wins:.1f}% ± {100 * whalf:.1f} "
            f"| {_ms(statistics.median(cpu))} | {_ms(percentile(cpu, 0.99))} "
            f"| {_ms(statistics.median(wall))} | {_ms(percentile(wall, 0.99))} | {len(wall)} |"
        )
    hard = [float(r["points"]["hard"]) for r in results]
    normal = [float(r["points"]["normal"]) for r in results]
    diff, dhalf = mean_ci([n - h for h, n in zip(hard, normal, strict=True)])
    base = statistics.fmean(normal)
    lines += [
        "",
        f"hard scores {100 * diff / base:.1f}% fewer points per game than normal "
        f"(paired 95% CI {100 * (diff - dhalf) / base:.1f}% to {100 * (diff + dhalf) / base:.1f}%)",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0, help="game i is seeded with seed + i")
    parser.add_argument("--workers", type=int, default=2, help="processes (1: no multiprocessing)")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args(argv)
    overrides = [(item.split("=")[0], float(item.split("=")[1])) for item in args.set]
    jobs = [(game, args.seed, overrides) for game in range(args.games)]
    start = time.perf_counter()
    if args.workers <= 1:
        results = [_play(job) for job in jobs]
    else:
        with Pool(args.workers) as pool:
            results = pool.map(_play, jobs, chunksize=1)
    print(report(results, time.perf_counter() - start))


if __name__ == "__main__":
    main()
