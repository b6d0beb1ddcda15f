"""First-load benchmark: how long a friend waits, after opening a room link, until the join form is shown.

Starts the real server (``python -m app``, a fresh SQLite database), creates a room over the REST API, then
opens ``/r/{code}`` in Chromium (Debian's, through Playwright) under Chromium's network emulation (CDP
``Network.emulateNetworkConditions``) and measures the time from navigation start to the join form's name
box being visible (a MutationObserver in the page records ``performance.now()`` the moment it appears).

- Cold: a new browser context per run (an empty cache, no service worker; ``--disable-cache``: DevTools'
  "disable cache" too, which also stops the page's preloads from being used, so the room's info is fetched
  twice). Each network profile runs ``--runs`` times, interleaved; the summary gives medians, the ratio to
  the unthrottled run, and what was transferred before the form showed (requests, bytes on the wire).
- Second visit (slow mobile link): in a new context the link is opened once (unthrottled), the service worker
  installs, the page is closed, and the link is opened again in a new page of the same context (cache
  enabled) under the slow link, which is applied to the worker's own fetches too (its CDP target). The
  baseline is the same with service workers blocked (the browser's HTTP cache only), in the same run.

    python benchmarks/first_load.py                 # slow mobile (400 ms, 400 kbit/s), 1.6 Mbit/s, none
    python benchmarks/first_load.py --runs 9
    python benchmarks/first_load.py --root ../main  # another checkout's server and client, same measure

Targets (issue 24): the join form within 2.0 s cold and 0.5 s on a second visit, at 400 ms latency and
400 kbit/s each way.
"""

from __future__ import annotations

import argparse
import json
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

from tests.server_process import server_env, start, stop_process, wait_ready  # noqa: E402

TARGET_S = 2.0
SECOND_TARGET_S = 0.5
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


def load_once(browser: Any, url: str, profile: Profile, disable_cache: bool = False) -> Run:
    """Open ``url`` in a fresh context (empty cache) under ``profile``; time until the join form shows. With
    ``disable_cache``, DevTools' "disable cache" too (which also keeps the page's own preloads from being
    used: the room's info is then fetched twice)."""
    # No service worker: a first visit has none, and one installing (on the page's load) would be measured
    # by the next second visit's worker lookup.
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, locale="en-US", service_workers="block"
    )
    try:
        page = context.new_page()
        page.add_init_script(WATCH_FORM)
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        if disable_cache:
            cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
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


def throttle_worker(browser: Any, base: str, profile: Profile, context_id: str) -> None:
    """Apply ``profile`` to the service worker's own fetches (a page's emulation does not cover them): through
    the browser's CDP session, attached to the worker's target (that of the browser context ``context_id``:
    an earlier context's worker may still be listed)."""
    session = browser.new_browser_cdp_session()
    targets = session.send("Target.getTargets")["targetInfos"]
    workers = [
        t
        for t in targets
        if t["type"] == "service_worker"
        and t["url"].startswith(base)
        and t.get("browserContextId") == context_id
    ]
    if len(workers) != 1:
        raise RuntimeError(f"expected one service worker of {base}, found {workers}")
    attached = session.send("Target.attachToTarget", {"targetId": workers[0]["targetId"], "flatten": False})
    for number, (method, params) in enumerate(
        (("Network.enable", {}), ("Network.emulateNetworkConditions", profile.conditions())), 1
    ):
        message = json.dumps({"id": number, "method": method, "params": params})
        session.send("Target.sendMessageToTarget", {"sessionId": attached["sessionId"], "message": message})


def second_visit(browser: Any, base: str, url: str, profile: Profile, *, worker: bool) -> Run:
    """Open ``url`` once (unthrottled; with ``worker``, until the service worker is installed and active),
    close it, then open it again in the same context under ``profile``: seconds to the join form."""
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, locale="en-US", service_workers="allow" if worker else "block"
    )
    try:
        first = context.new_page()
        first.goto(url)
        first.wait_for_selector(FORM, state="visible", timeout=60_000)
        if worker:
            first.evaluate("async () => { await navigator.serviceWorker.ready; }")
        first.close()
        page = context.new_page()
        page.add_init_script(WATCH_FORM)
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Network.emulateNetworkConditions", profile.conditions())
        if worker:
            context_id = cdp.send("Target.getTargetInfo")["targetInfo"]["browserContextId"]
            throttle_worker(browser, base, profile, context_id)
        page.goto(url, wait_until="commit")
        page.wait_for_selector(FORM, state="visible", timeout=60_000)
        page.wait_for_function("() => window.__formAt !== undefined")
        if worker and not page.evaluate("() => !!navigator.serviceWorker.controller"):
            raise RuntimeError("the service worker did not control the second visit")
        fetched = page.evaluate(FETCHED_BEFORE_FORM)
        return Run(
            float(page.evaluate("window.__formAt")) / 1000,
            len(fetched),
            sum(size for *_, size in fetched),
            [
                f"{start:6d} -> {end:6d} ms {size:7d} B  {name.split('/', 3)[-1]}"
                for name, start, end, size in fetched
            ],
        )
    finally:
        context.close()


def timed(label: str, load: Any) -> Run | None:
    """One page load, printed; None if it timed out (a busy machine): left out of the medians, and said."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        run: Run = load()
    except PlaywrightTimeout:
        print(f"{label} timed out (left out)", flush=True)
        return None
    print(f"{label} {run.seconds:6.2f} s", flush=True)
    return run


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=7, help="page loads per network profile (default 7)")
    parser.add_argument(
        "--cold-only", action="store_true", help="no second visits (a client without a worker)"
    )
    parser.add_argument(
        "--root",
        type=Path,
        default=ROOT,
        help="the checkout whose server (python -m app, run there) is measured: a baseline in another git"
        " worktree, measured the same way (default: this one)",
    )
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        raise SystemExit("Debian's chromium is needed (apt-get install chromium)")
    with tempfile.TemporaryDirectory() as tmp:
        port = _free_port()
        log = Path(tmp) / "server.log"
        env = server_env(f"sqlite+aiosqlite:///{tmp}/bench.db", port, LOG_LEVEL="warning")
        root = args.root.resolve()
        print(f"measuring the server and client of {root}", flush=True)
        proc = start([sys.executable, "-m", "app"], env, log, cwd=root)
        try:
            base = f"http://127.0.0.1:{port}"
            wait_ready(proc, base, log, timeout=180, path="/healthz")  # a busy machine starts it slowly
            created = httpx.post(f"{base}/api/rooms", json={"name": "Sara", "seats": 4}).json()
            url = f"{base}/r/{created['code']}"
            results: dict[str, list[Run]] = {p.name: [] for p in PROFILES}
            seconds_again: dict[bool, list[Run]] = {True: [], False: []}
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=chromium, args=["--no-sandbox", "--disable-gpu", "--disable-quic"]
                )
                load_once(browser, url, PROFILES[-1])  # warm the server (its first page render)
                for i in range(args.runs):
                    for profile in PROFILES:  # interleaved: a burst of other work hits every profile alike
                        run = timed(
                            f"run {i + 1}  {profile.name:34}", lambda p=profile: load_once(browser, url, p)
                        )
                        if run:
                            results[profile.name].append(run)
                    for worker in () if args.cold_only else (True, False):
                        label = "second visit, " + ("service worker" if worker else "no worker (HTTP cache)")
                        again = timed(
                            f"run {i + 1}  {label:34}",
                            lambda w=worker: second_visit(browser, base, url, PROFILES[0], worker=w),
                        )
                        if again:
                            seconds_again[worker].append(again)
                browser.close()
        finally:
            stop_process(proc)
    report(results, len(results[PROFILES[0].name]))
    if not args.cold_only:
        report_second(seconds_again, len(seconds_again[True]))


def report(results: dict[str, list[Run]], runs: int) -> None:
    """Medians per profile, their ratio to the unthrottled run, and what the slow link carried."""
    base = statistics.median(r.seconds for r in results[PROFILES[-1].name])
    print(f"\nTime from opening the room link to the join form, median of {runs} cold loads (empty cache):")
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


def report_second(runs_: dict[bool, list[Run]], runs: int) -> None:
    """The second visit's medians, with and without the service worker, their ratio, and what the first
    run with the worker fetched (transfer size 0: from the worker's cache)."""
    seconds = {w: [r.seconds for r in runs_[w]] for w in (True, False)}
    worker, cache_only = (statistics.median(seconds[w]) for w in (True, False))
    print(f"\nSecond visit at {PROFILES[0].name}, median of {runs}:")
    for label, w in (("service worker", True), ("no worker, HTTP cache", False)):
        median = worker if w else cache_only
        print(f"  {label:21} {median:5.2f} s  (min {min(seconds[w]):.2f}, max {max(seconds[w]):.2f})")
    print(f"  worker / no worker    {worker / cache_only:5.2f}x")
    verdict = "met" if worker <= SECOND_TARGET_S else "MISSED"
    print(f"target: join form within {SECOND_TARGET_S} s on a second visit: {worker:.2f} s, {verdict}")
    print("what had loaded when the form showed (second visit with the worker, first run):")
    for u in runs_[True][0].urls:
        print(f"  {u}")


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


if __name__ == "__main__":
    main()
