"""First-load benchmark: how long a friend waits, after opening a room link, until the join form is shown.

Starts the real server (``python -m app``, a fresh SQLite database), creates a room over the REST API, then
opens ``/r/{code}`` in Chromium (Debian's, through Playwright) in a new browser context per run (a cold
cache) under Chromium's network emulation (CDP ``Network.emulateNetworkConditions``) and measures the time
from navigation start to the join form's name box being visible (a MutationObserver in the page records
``performance.now()`` the moment it appears). Each profile runs ``--runs`` times, interleaved, in the same
invocation; the summary gives medians, the ratio to the unthrottled baseline, and what was transferred
before the form showed (requests, bytes on the wire).

    python benchmarks/first_load.py                 # slow mobile (400 ms, 400 kbit/s), 1.6 Mbit/s, none
    python benchmarks/first_load.py --runs 9

Target (issue 14): the join form within 2.5 s at 400 ms latency and 400 kbit/s each way.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.server_process import start_server_process, stop_process  # noqa: E402

TARGET_S = 2.5
FORM = "[data-testid=join-name]"
# Records when the join form's name box is first in the page and laid out (visible).
WATCH_FORM = """(() => {
  const seen = () => {
    const el = document.querySelector('FORM');
    if (el && el.getClientRects().length && !window.__formAt) window.__formAt = performance.now();
    return !!window.__formAt;
  };
  new MutationObserver((_, observer) => { if (seen()) observer.disconnect(); })
    .observe(document, { childList: true, subtree: true });
})();""".replace("FORM", FORM)


@dataclass(frozen=True)
class Profile:
    """A network to emulate: one-way latency added to each round trip, and throughput each way."""

    name: str
    latency_ms: float
    bytes_per_s: float  # -1: no limit

    def conditions(self) -> dict[str, Any]:
        return {
            "offline": False,
            "latency": self.latency_ms,
            "downloadThroughput": self.bytes_per_s,
            "uploadThroughput": self.bytes_per_s,
        }


PROFILES = [
    Profile("slow mobile: 400 ms, 400 kbit/s", 400, 50_000),
    Profile("baseline: 150 ms, 1.6 Mbit/s", 150, 200_000),
    Profile("no throttling", 0, -1),
]


@dataclass
class Run:
    """One page load: seconds to the form, and the requests finished (with their bytes) before it showed."""

    seconds: float
    requests: int
    wire_bytes: int
    urls: list[str] = field(default_factory=list)


# What the page had fetched by the time the form showed (Resource Timing: the page's own clock).
FETCHED_BEFORE_FORM = """() => [
  ...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')]
  .filter((e) => e.responseEnd <= window.__formAt)
  .map((e) => [e.name, Math.round(e.startTime), Math.round(e.responseEnd), e.transferSize])"""


def load_once(browser: Any, url: str, profile: Profile) -> Run:
    """Open ``url`` in a fresh context (empty cache) under ``profile``; time until the join form shows."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    try:
        page = context.new_page()
        page.add_init_script(WATCH_FORM)
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Network.emulateNetworkConditions", profile.conditions())
        page.goto(url, wait_until="commit")
        page.wait_for_selector(FORM, state="visible", timeout=60_000)
        page.wait_for_function("() => window.__formAt !== undefined")
        seconds = page.evaluate("window.__formAt") / 1000
        fetched = page.evaluate(FETCHED_BEFORE_FORM)
        lines = [
            f"{start:6d} -> {end:6d} ms {size:7d} B  {name.split('/', 3)[-1]}"
            for name, start, end, size in fetched
        ]
        return Run(seconds, len(fetched), sum(size for *_, size in fetched), lines)
    finally:
        context.close()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=7, help="page loads per network profile (default 7)")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        raise SystemExit("Debian's chromium is needed (apt-get install chromium)")
    with tempfile.TemporaryDirectory() as tmp:
        port = _free_port()
        log = Path(tmp) / "server.log"
        proc = start_server_process(f"sqlite+aiosqlite:///{tmp}/bench.db", port, log, LOG_LEVEL="warning")
        try:
            base = f"http://127.0.0.1:{port}"
            created = httpx.post(f"{base}/api/rooms", json={"name": "Sara", "seats": 4}).json()
            url = f"{base}/r/{created['code']}"
            results: dict[str, list[Run]] = {p.name: [] for p in PROFILES}
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=chromium, args=["--no-sandbox", "--disable-gpu", "--disable-quic"]
                )
                load_once(browser, url, PROFILES[-1])  # warm the server (its first page render)
                for i in range(args.runs):
                    for profile in PROFILES:  # interleaved: a burst of other work hits every profile alike
                        run = load_once(browser, url, profile)
                        results[profile.name].append(run)
                        print(f"run {i + 1}  {profile.name:34} {run.seconds:6.2f} s", flush=True)
                browser.close()
        finally:
            stop_process(proc)
    report(results, args.runs)


def report(results: dict[str, list[Run]], runs: int) -> None:
    """Medians per profile, their ratio to the unthrottled run, and what the slow link carried."""
    base = statistics.median(r.seconds for r in results[PROFILES[-1].name])
    print(f"\nTime from opening the room link to the join form, median of {runs} cold-cache loads:")
    print(f"{'network':34} {'median':>8} {'min':>7} {'max':>7} {'x none':>7} {'requests':>9} {'bytes':>8}")
    for profile in PROFILES:
        runs_ = results[profile.name]
        med = statistics.median(r.seconds for r in runs_)
        requests = statistics.median(r.requests for r in runs_)
        wire = statistics.median(r.wire_bytes for r in runs_)
        print(
            f"{profile.name:34} {med:7.2f}s {min(r.seconds for r in runs_):6.2f}s"
            f" {max(r.seconds for r in runs_):6.2f}s {med / base:6.1f}x {requests:9.0f} {wire:8.0f}"
        )
    slow = statistics.median(r.seconds for r in results[PROFILES[0].name])
    verdict = "met" if slow <= TARGET_S else "MISSED"
    print(f"\ntarget: join form within {TARGET_S} s at 400 ms / 400 kbit/s: {slow:.2f} s, {verdict}")
    print("what had loaded when the form showed (slow link, first run; start -> end, bytes on the wire):")
    for u in results[PROFILES[0].name][0].urls:
        print(f"  {u}")


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


if __name__ == "__main__":
    main()
