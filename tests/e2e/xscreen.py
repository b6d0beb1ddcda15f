"""An X screen of its own (Xvfb) for what headless Chromium cannot do: draw a notification's popup, and take a
real tap on it. Used by the real-tap browser test (test_push_tap.py) and the notification's screenshots
(docs/screenshots/make_notification_shots.py). Needs Debian's ``xvfb``, ``x11-utils`` (xwininfo) and, to tap,
``xdotool``."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager

TOOLS = ("Xvfb", "xwininfo", "xdotool")
WINDOW = re.compile(r"^\s+(0x[0-9a-f]+) .*\s(\d+)x(\d+)\+(-?\d+)\+(-?\d+)\s+\+(-?\d+)\+(-?\d+)$")


def missing_tools() -> list[str]:
    """Which of the X tools this machine lacks."""
    return [tool for tool in TOOLS if shutil.which(tool) is None]


@contextmanager
def xvfb(width: int, height: int) -> Iterator[str]:
    """An Xvfb screen of its own (the first free display number): its ``DISPLAY`` while it runs."""
    if shutil.which("Xvfb") is None:
        raise SystemExit("Xvfb is missing: apt-get install xvfb")
    read, write = os.pipe()
    proc = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-screen", "0", f"{width}x{height}x24", "-nolisten", "tcp"],
        pass_fds=(write,),
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    try:
        number = os.read(read, 16).decode().strip()
        if not number:
            raise RuntimeError("Xvfb did not start")
        yield f":{number}"
    finally:
        os.close(read)
        proc.terminate()
        proc.wait(timeout=10)


def windows(display: str) -> dict[str, tuple[int, int, int, int]]:
    """The X screen's top-level windows that are shown: id -> (width, height, x, y)."""
    env = {**os.environ, "DISPLAY": display}
    tree = subprocess.run(
        ["xwininfo", "-root", "-children"], env=env, capture_output=True, text=True, check=True
    ).stdout
    found = {}
    for line in tree.splitlines():
        if (match := WINDOW.match(line)) is None:
            continue
        window = match.group(1)
        state = subprocess.run(["xwininfo", "-id", window], env=env, capture_output=True, text=True).stdout
        if "IsViewable" in state:
            width, height, x, y = (int(match.group(i)) for i in (2, 3, 6, 7))
            found[window] = (width, height, x, y)
    return found


def tap(display: str, x: int, y: int) -> None:
    """A real click at (x, y) on the screen, as the X server's own input (XTest): a user gesture."""
    env = {**os.environ, "DISPLAY": display}
    subprocess.run(["xdotool", "mousemove", "--sync", str(x), str(y), "click", "1"], env=env, check=True)
