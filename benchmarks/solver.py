"""Solver speed and exactness against the brute-force oracle of tests/engine/oracle.py.

    python benchmarks/solver.py [--hands N] [--seed S]

Deals N seeded 14-card hands (round 11 after the draw: wild rank K, two decks), first without jokers then
with them, and times ``best_arrangement`` and the oracle on the same hands in the same run.
Targets: no mismatch, solver median <= 0.5 ms and p99 <= 5 ms per hand, >= 50x faster than the oracle.

Two oracles: the fast one (identical cards merged, hopeless subsets pruned) checks every hand; the plain
all-subsets brute force (every one of the 2^14 subsets tested, what other open servers do) is the speed
baseline, timed on the first ``--plain-hands`` hands of each pass (it takes ~0.2-0.3 s a hand).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "engine")]

from oracle import oracle_min_penalty, plain_min_penalty  # noqa: E402

from app.engine.cards import make_shoe  # noqa: E402
from app.engine.options import Options  # noqa: E402
from app.engine.solver import best_arrangement  # noqa: E402

WILD_RANK = 13  # round 11
HAND_SIZE = 14  # 13 dealt + 1 drawn


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def run(
    label: str, options: Options, hands: int, seed: int, clock: Callable[[], float], plain_hands: int
) -> bool:
    rng = random.Random(seed)
    shoe = make_shoe(2, options.jokers)
    solver_ms: list[float] = []
    oracle_ms: list[float] = []
    ratios: list[float] = []
    plain_ratios: list[float] = []
    plain_ms: list[float] = []
    mismatches = 0
    for index in range(hands):
        hand = rng.sample(shoe, HAND_SIZE)
        start = clock()
        solved = best_arrangement(hand, WILD_RANK, options).penalty
        middle = clock()
        expected = oracle_min_penalty(hand, WILD_RANK, options)
        end = clock()
        solver_ms.append((middle - start) * 1000)
        oracle_ms.append((end - middle) * 1000)
        ratios.append((end - middle) / (middle - start))
        mismatches += solved != expected
        if index < plain_hands:
            before = clock()
            mismatches += plain_min_penalty(hand, WILD_RANK, options) != solved
            plain = clock() - before
            plain_ms.append(plain * 1000)
            plain_ratios.append(plain / (middle - start))
    solver_median = statistics.median(solver_ms)
    solver_p99 = percentile(solver_ms, 0.99)
    ratio = statistics.median(ratios)
    print(f"{label}: {hands} hands, wild K, 2 decks")
    print(f"  mismatches vs oracle : {mismatches}")
    print(f"  solver median / p99  : {solver_median:.3f} ms / {solver_p99:.3f} ms", end="")
    print(f" (max {max(solver_ms):.3f} ms)")
    print(f"  oracle median        : {statistics.median(oracle_ms):.3f} ms")
    print(f"  median oracle/solver : {ratio:.1f}x  (fast oracle)")
    plain_ratio = statistics.median(plain_ratios) if plain_ratios else float("nan")
    if plain_ms:
        print(
            f"  plain all-subsets    : median {statistics.median(plain_ms):.1f} ms over {len(plain_ms)} hands"
        )
        print(f"  median plain/solver  : {plain_ratio:.0f}x  (all-subsets brute force, per-hand ratios)")
    targets = {
        "exact": mismatches == 0,
        "median <= 0.5 ms": solver_median <= 0.5,
        "p99 <= 5 ms": solver_p99 <= 5,
        ">= 50x all-subsets oracle": plain_ratio >= 50,
    }
    missed = [name for name, ok in targets.items() if not ok]
    print(f"  targets              : {'all met' if not missed else 'missed: ' + ', '.join(missed)}")
    return not missed


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--hands", type=int, default=10_000, help="hands per pass (default 10000)")
    parser.add_argument("--seed", type=int, default=2024, help="seed of the deal (default 2024)")
    parser.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="wall: perf_counter (default); cpu: this process's CPU time, steadier on a busy machine",
    )
    parser.add_argument(
        "--plain-hands", type=int, default=300, help="hands per pass also timed with the plain brute force"
    )
    args = parser.parse_args()
    clock = time.perf_counter if args.clock == "wall" else time.process_time
    print(f"clock: {args.clock}")
    results = [
        run("no jokers", Options(decks=2), args.hands, args.seed, clock, args.plain_hands),
        run("jokers", Options(decks=2, jokers=True), args.hands, args.seed + 1, clock, args.plain_hands),
    ]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
