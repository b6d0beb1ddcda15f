"""What one redis-server and a three-node Redis Cluster cost at rest: their CPU with no client, side by side.

    python benchmarks/redis_idle.py --seconds 30

The part of a cluster's cost that does not come from moves (each node pings the others on the cluster bus
and runs its cron), to take away from ``load.py --redis single cluster``'s Redis CPU per move (docs/
benchmarks.md, "Issue 38 (2)"). Starts both as the scale suite does (tests/scale/cluster.py).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.scale.cluster import RedisCluster, RedisServer  # noqa: E402


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="redis-idle-"))
    (tmp / "single").mkdir()
    single, cluster = RedisServer(tmp / "single"), RedisCluster(tmp / "cluster")
    try:
        single.start()
        cluster.start()
        pids = {"one server": [single.proc.pid] if single.proc else [], "cluster (3 nodes)": []}
        pids["cluster (3 nodes)"] = [node.proc.pid for node in cluster.nodes if node.proc]
        time.sleep(3)  # past the cluster's first gossip
        before = {name: sum(map(cpu_seconds, ps)) for name, ps in pids.items()}
        started, load = time.monotonic(), os.getloadavg()[0]
        time.sleep(args.seconds)
        elapsed = time.monotonic() - started
        for name, ps in pids.items():
            used = sum(map(cpu_seconds, ps)) - before[name]
            share = 100 * used / elapsed
            print(f"{name}: {used:.2f} s of CPU in {elapsed:.1f} s at rest = {share:.2f}% of a core")
        print(f"load average {load:.1f} -> {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")
    finally:
        single.kill()
        cluster.kill()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
