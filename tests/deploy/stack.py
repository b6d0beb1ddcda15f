"""The compose stack of the deployment tests: a copy of the repository run by podman and podman-compose.

The README's commands are run as written, by bash, with ``docker`` a shell function that hands
``docker compose …`` to podman-compose and anything else to podman (so nothing in them is retyped here).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
BASE_IMAGES = ROOT / "deploy" / "base-images.sh"
PROJECT = "three-thirteen"  # the directory's name: compose's project name, as in the README's clone step
# podman in this kind of sandbox: no CAP_SYS_RESOURCE, so a container may not be given more open files or
# processes than the host allows (runc refused podman's defaults, 1,048,576 files and 4,194,304 processes;
# processes were refused above 32,768 here even below the host's own limit).
MAX_PROCESSES = 32768


def deploy_asked() -> bool:
    return os.environ.get("DEPLOY_TESTS", "") in ("1", "true", "yes")


def full_asked() -> bool:
    return os.environ.get("DEPLOY_FULL", "") in ("1", "true", "yes")


def need(binary: str) -> str:
    """The path of ``binary`` (from this virtualenv first); fails the test session when it is missing, since
    the deployment suite only runs when asked for (DEPLOY_TESTS=1)."""
    local = Path(sys.executable).parent / binary
    found = str(local) if local.exists() else shutil.which(binary)
    if not found:
        import pytest

        pytest.fail(f"{binary} is not installed (DEPLOY_TESTS=1): .ci/run installs it (apt, pip)")
    return found


def containers_conf(path: Path) -> Path:
    """A containers.conf whose limits this host allows (the engine's defaults are above them here)."""
    import resource

    files = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    processes = resource.getrlimit(resource.RLIMIT_NPROC)[1]
    files = 1 << 20 if files == resource.RLIM_INFINITY else files
    processes = MAX_PROCESSES if processes == resource.RLIM_INFINITY else min(processes, MAX_PROCESSES)
    path.write_text(
        f'[containers]\ndefault_ulimits = ["nofile={files}:{files}", "nproc={processes}:{processes}"]\n'
    )
    return path


def readme_command(containing: str) -> str:
    """The README's fenced shell block that contains ``containing`` (exactly one must)."""
    text = (ROOT / "README.md").read_text()
    blocks = [b for b in re.findall(r"```sh\n(.*?)```", text, re.S) if containing in b]
    assert len(blocks) == 1, f"{len(blocks)} README blocks contain {containing!r}"
    return "\n".join(line.strip() for line in blocks[0].splitlines()).strip()


@dataclass
class Stack:
    """A copy of the repository in ``home/three-thirteen`` and the podman-compose project it runs."""

    home: Path
    env: dict[str, str] = field(default_factory=dict)
    ports: dict[str, int] = field(default_factory=dict)  # APP_PORT, HTTP_PORT, HTTPS_PORT on this host

    @property
    def dir(self) -> Path:
        return self.home / PROJECT

    def copy_repository(self) -> None:
        """The repository's files as a clone has them (tracked and new, not ignored ones; without git, all
        but the usual local leftovers)."""
        listed = subprocess.run(
            ["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True, check=False
        )
        if listed.returncode != 0:
            leftovers = shutil.ignore_patterns(".git", ".venv", "data", "__pycache__", ".env", "*.dump")
            shutil.copytree(ROOT, self.dir, ignore=leftovers)
            return
        for name in filter(None, listed.stdout.split(b"\0")):
            source = ROOT / name.decode()
            if source.is_file():
                target = self.dir / name.decode()
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target)

    def shell(
        self, script: str, timeout: float = 600, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        """Run ``script`` with bash in the copy, ``docker`` meaning podman (and ``docker compose``
        podman-compose); its output is kept in the log."""
        shim = (
            'docker() { if [ "$1" = compose ]; then shift; "$PODMAN_COMPOSE" "$@"; else podman "$@"; fi; }\n'
            "set -euo pipefail\n"
        )
        start = time.monotonic()
        done = subprocess.run(
            ["bash", "-c", shim + script],
            cwd=self.dir,
            env={**os.environ, **self.env},
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        with (self.home / "commands.log").open("a") as log:
            log.write(f"$ {script}\n# status {done.returncode} in {time.monotonic() - start:.1f} s\n")
            log.write(done.stdout[-20000:] + done.stderr[-20000:] + "\n")
        if check and done.returncode != 0:
            raise AssertionError(
                f"{script!r} failed ({done.returncode}):\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
            )
        return done

    def podman(
        self, *args: str, check: bool = True, timeout: float = 120
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["podman", *args],
            env={**os.environ, **self.env},
            capture_output=True,
            text=True,
            timeout=timeout,
            check=check,
        )

    def containers(self, service: str) -> list[str]:
        """The running containers of ``service``, by name."""
        listed = self.podman(
            "ps",
            "--filter",
            f"label=io.podman.compose.project={PROJECT}",
            "--filter",
            f"label=com.docker.compose.service={service}",
            "--format",
            "{{.Names}}",
        ).stdout.split()
        return sorted(listed)

    def healthy(self, service: str, timeout: float = 120) -> None:
        """Wait until every container of ``service`` passes the compose file's health check (run here:
        podman runs health checks from systemd timers, and this host has no systemd)."""
        deadline = time.monotonic() + timeout
        names = self.containers(service)
        assert names, f"no {service} container is running"
        pending = set(names)
        while pending:
            for name in sorted(pending):
                if self.podman("healthcheck", "run", name, check=False).returncode == 0:
                    pending.discard(name)
            if pending:
                if time.monotonic() > deadline:
                    logs = "".join(
                        self.podman("logs", "--tail", "40", n, check=False).stdout for n in pending
                    )
                    raise AssertionError(f"{sorted(pending)} not healthy within {timeout} s:\n{logs}")
                time.sleep(1)

    def address(self, container: str) -> str:
        """A container's address on the compose network (the host reaches it: podman runs as root)."""
        data = json.loads(self.podman("inspect", container).stdout)[0]
        networks = data["NetworkSettings"]["Networks"]
        return str(next(iter(networks.values()))["IPAddress"])

    def logs(self, container: str, tail: int = 60) -> str:
        done = self.podman("logs", "--tail", str(tail), container, check=False)
        return done.stdout + done.stderr

    def save_logs(self) -> None:
        """Every container's state and log, appended to commands.log (for a failed run)."""
        label = f"label=io.podman.compose.project={PROJECT}"
        names = self.podman(
            "ps", "-a", "--filter", label, "--format", "{{.Names}}", check=False
        ).stdout.split()
        with (self.home / "commands.log").open("a") as log:
            for name in names:
                state = self.podman(
                    "inspect", "--format", "{{.State.Status}} restarts={{.RestartCount}}", name, check=False
                )
                log.write(f"# container {name}: {state.stdout.strip()}\n{self.logs(name, tail=300)}\n")

    def down(self) -> None:
        """Everything of the project gone, volumes too (compose's own `down` only knows the containers its
        file names now: scaled replicas and a run cut short leave others)."""
        files = "-f docker-compose.yml -f docker-compose.scale.yml"
        self.shell(
            f"docker compose {files} --profile https --profile scale down -v -t 5", check=False, timeout=300
        )
        label = f"label=io.podman.compose.project={PROJECT}"
        left = self.podman("ps", "-aq", "--filter", label, check=False).stdout.split()
        if left:
            self.podman("rm", "-f", "-t", "5", *left, check=False)
        self.podman("pod", "rm", "-f", f"pod_{PROJECT}", check=False)
        volumes = self.podman("volume", "ls", "-q", "--filter", label, check=False).stdout.split()
        if volumes:
            self.podman("volume", "rm", "-f", *volumes, check=False)
        self.podman("network", "rm", "-f", f"{PROJECT}_default", check=False)


def wait_answers(url: str, timeout: float = 120, **kwargs: object) -> httpx.Response:
    """GET ``url`` until it answers 200."""
    deadline = time.monotonic() + timeout
    last: object = None
    while time.monotonic() < deadline:
        try:
            response = httpx.get(url, timeout=5, **kwargs)  # type: ignore[arg-type]
            if response.status_code == 200:
                return response
            last = response.status_code
        except httpx.HTTPError as exc:
            last = exc
        time.sleep(0.5)
    raise AssertionError(f"{url} did not answer 200 within {timeout} s (last: {last!r})")
