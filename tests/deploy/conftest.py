"""The deployment suite runs only when asked for (DEPLOY_TESTS=1, as .ci/run sets): it builds images and
runs containers for minutes. Asked for, a missing podman or podman-compose fails it; DEPLOY_FULL=1 adds
the https and scale profiles."""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.deploy.stack import BASE_IMAGES, PROJECT, Stack, containers_conf, deploy_asked, need
from tests.server_process import free_port


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if "deploy" not in item.keywords:
            continue
        if not deploy_asked():
            item.add_marker(
                pytest.mark.skip(reason="the deployment suite runs with DEPLOY_TESTS=1 (.ci/run)")
            )


@pytest.fixture(scope="session")
def stack() -> Iterator[Stack]:
    """The repository copied as a clone, its base images built (or found up to date), `.env` made from
    `.env.example` as the README says; torn down (volumes too) at the end."""
    need("podman")
    compose = need("podman-compose")
    if os.geteuid() != 0:
        pytest.fail("the deployment suite runs podman as root (its networks, published ports and limits)")
    need("mmdebstrap")
    # Not under pytest's temporary folders: other pytest runs on the machine prune old ones, and the
    # project's folder must outlive every step.
    home = Path(tempfile.mkdtemp(prefix="three-thirteen-deploy-"))
    conf = containers_conf(home / "containers.conf")
    env = {"CONTAINERS_CONF": str(conf), "PODMAN_COMPOSE": compose}
    start = time.monotonic()
    built = subprocess.run(
        ["bash", str(BASE_IMAGES)], env={**os.environ, **env}, capture_output=True, text=True
    )
    assert built.returncode == 0, built.stdout + built.stderr
    print(f"\nbase images: {time.monotonic() - start:.0f} s\n{built.stdout}")
    stack = Stack(home, env)
    stack.copy_repository()
    stack.down()  # a project left over by an interrupted run
    # The app's image of an earlier run (`up -d` builds only when it is missing) must not stand in for
    # this code: untagged, it still serves the build as a cache.
    stack.podman("untag", f"localhost/{PROJECT}_app", check=False)
    stack.ports = {"APP_PORT": free_port(), "HTTP_PORT": free_port(), "HTTPS_PORT": free_port()}
    # Step 2 of the README: copy the example settings, then edit them.
    stack.shell(readme_command_of_configure())
    edit_env(
        stack.dir / ".env",
        POSTGRES_PASSWORD=secrets.token_urlsafe(24),
        APP_PORT=str(stack.ports["APP_PORT"]),
        PUBLIC_BASE_URL=f"http://localhost:{stack.ports['APP_PORT']}",
        DOMAIN="localhost",
        HTTP_PORT=str(stack.ports["HTTP_PORT"]),
        HTTPS_PORT=str(stack.ports["HTTPS_PORT"]),
        BOT_DELAY_MS="0",
        ROUND_BREAK_SECONDS="0",
    )
    try:
        yield stack
    finally:
        stack.save_logs()
        stack.down()
        shutil.rmtree(stack.dir, ignore_errors=True)  # the copy; the logs stay
        print(f"deployment commands, their output and the containers' logs: {home}/commands.log")
        # Each run's builds leave untagged layers (this run's are the next one's cache): older ones go.
        stack.podman("image", "prune", "-f", "--filter", "until=72h", check=False)


def readme_command_of_configure() -> str:
    """README step 2 without the editor (the test edits the file itself, as a person would)."""
    from tests.deploy.stack import readme_command

    command = readme_command("cp .env.example .env")
    assert command == 'cp .env.example .env && "${EDITOR:-nano}" .env', command
    return "cp .env.example .env"


def edit_env(path: Path, **values: str) -> None:
    """Set ``values`` in an env file: a line ``NAME=…`` (commented out or not) is replaced, else added."""
    lines = path.read_text().splitlines()
    for name, value in values.items():
        for i, line in enumerate(lines):
            if line.lstrip("# ").startswith(f"{name}="):
                lines[i] = f"{name}={value}"
                break
        else:
            lines.append(f"{name}={value}")
    path.write_text("\n".join(lines) + "\n")
