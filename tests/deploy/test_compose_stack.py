"""The README's hosting steps, run for real: docker-compose.yml under podman and podman-compose, with base
images built here from Debian packages (deploy/base-images.sh). One stack, one game, step by step: the
tests depend on each other's order (they share the stack and the game).

Default set (DEPLOY_TESTS=1): configure, up, healthy, the page and /readyz, a game over a WebSocket,
`restart app`, backup and restore, an upgrade. With DEPLOY_FULL=1: the https profile (Caddy, TLS) and the
scale profile (3 replicas behind Caddy with Redis, one killed mid-game). The steps run in order in one test.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import ssl
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import websockets

from tests.deploy.game import Game, new_game
from tests.deploy.stack import Stack, full_asked, readme_command, wait_answers

pytestmark = [pytest.mark.deploy, pytest.mark.xdist_group("deploy")]

shared: dict[str, Any] = {}  # the game the steps play, passed from one step to the next


def base(stack: Stack) -> str:
    return f"http://127.0.0.1:{stack.ports['APP_PORT']}"


def on_our_port(stack: Stack, command: str) -> str:
    """A README command with the README's port 8000 replaced by this run's APP_PORT."""
    return command.replace("localhost:8000", f"localhost:{stack.ports['APP_PORT']}")


def restarts(stack: Stack, container: str) -> int:
    return int(stack.podman("inspect", "--format", "{{.RestartCount}}", container).stdout.strip())


def game() -> Game:
    if "game" not in shared:
        pytest.fail("the game of the earlier steps is missing (an earlier step failed)")
    return shared["game"]


@contextlib.asynccontextmanager
async def seated(game: Game, **bases: tuple[str, dict[str, Any]]) -> AsyncIterator[Game]:
    """Both seats on sockets for one step (each step has its own event loop), closed at its end;
    ``seat0=(base, kwargs)`` puts a seat's socket elsewhere than the published port."""
    try:
        for seat in game.tokens:
            where, kwargs = bases.get(f"seat{seat}", (None, {}))
            await game.connect(seat, where, **kwargs)
        yield game
    finally:
        await game.close()


def step_up_brings_both_services_up_healthy_and_serving(stack: Stack) -> None:
    """README step 3, as written: `up -d`, `ps`, then /readyz answers on the published port."""
    start = time.monotonic()
    stack.shell(on_our_port(stack, readme_command("docker compose ps")), timeout=900)
    stack.healthy("db")
    stack.healthy("app")
    print(f"up and healthy in {time.monotonic() - start:.0f} s")
    [app] = stack.containers("app")
    # podman-compose starts the app without waiting for the database's health check: the app waits itself.
    assert restarts(stack, app) == 0, (
        f"the app exited while the database started:\n{stack.logs(app, tail=400)}"
    )
    page = httpx.get(base(stack) + "/", timeout=10)
    assert page.status_code == 200 and "<html" in page.text.lower()
    assert httpx.get(base(stack) + "/readyz", timeout=10).status_code == 200
    assert '"level"' in stack.logs(app), "the container's logs are JSON lines (not a terminal)"


async def step_a_game_is_played_over_a_websocket_through_the_published_port(stack: Stack) -> None:
    played = await new_game(base(stack))
    try:
        await played.play(6)
    finally:
        await played.close()
    assert played.public_state()["game"]["moves"] == 6
    shared["game"] = played


async def step_restarting_the_app_keeps_the_game_and_its_moves(stack: Stack) -> None:
    played = game()
    before = played.public_state()
    stack.shell("docker compose restart app", timeout=300)
    stack.healthy("app")
    after = played.public_state()
    assert after["version"] == before["version"] and after["game"]["moves"] == 6
    async with seated(played):
        await played.play(2)
    assert played.public_state()["game"]["moves"] == 8


async def step_the_readme_backup_makes_a_dump_and_its_restore_brings_the_table_back(stack: Stack) -> None:
    played = game()
    at_backup = played.public_state()
    stack.shell(readme_command("pg_dump"), timeout=300)
    dumps = list(stack.dir.glob("backup-*.dump"))
    assert len(dumps) == 1 and dumps[0].read_bytes().startswith(b"PGDMP"), dumps
    async with seated(played):
        await played.play(3)  # moves after the backup: the restore takes the table back to before them
    assert played.public_state()["version"] == at_backup["version"] + 3
    dumps[0].rename(stack.dir / "backup.dump")  # the README restores "backup.dump"
    stack.shell(readme_command("pg_restore"), timeout=300)
    stack.healthy("app")
    restored = played.public_state()
    assert restored["version"] == at_backup["version"]
    assert restored["game"]["moves"] == at_backup["game"]["moves"]
    async with seated(played):
        assert played.latest()["version"] == at_backup["version"]
        await played.play(2)


async def step_an_upgrade_serves_the_new_code_with_the_game_intact(stack: Stack) -> None:
    played = game()
    before = played.public_state()
    marker = secrets.token_hex(8)
    (stack.dir / "static" / "upgrade-check.txt").write_text(marker)  # the new release's code
    command = readme_command("docker compose up -d --build")
    assert command.startswith("git pull && "), command  # the copy is no clone: the change above is the pull
    stack.shell(command.removeprefix("git pull && "), timeout=900)
    stack.healthy("app")
    new = wait_answers(base(stack) + "/static/upgrade-check.txt")
    assert new.text == marker, "the upgraded container serves the new code"
    assert played.public_state()["version"] == before["version"]
    async with seated(played):
        await played.play(2)


async def step_the_https_profile_answers_over_tls_with_caddy_in_front(stack: Stack) -> None:
    """README step 4 with DOMAIN=localhost: Caddy's own certificate authority signs it (no real one here)."""
    command = readme_command("--profile https up -d")
    assert command.startswith("DOMAIN=cards.example.org "), command
    stack.shell(command.replace("DOMAIN=cards.example.org", "DOMAIN=localhost", 1), timeout=900)
    [caddy] = stack.containers("caddy")
    root = stack.dir.parent / "caddy-root.crt"
    https = f"https://localhost:{stack.ports['HTTPS_PORT']}"
    deadline = time.monotonic() + 60
    while True:  # Caddy makes its authority and the certificate at start
        done = stack.podman("exec", caddy, "cat", "/data/caddy/pki/authorities/local/root.crt", check=False)
        if done.returncode == 0 and "BEGIN CERTIFICATE" in done.stdout:
            break
        assert time.monotonic() < deadline, stack.logs(caddy)
        time.sleep(0.5)
    root.write_text(done.stdout)
    tls = ssl.create_default_context(cafile=str(root))
    ready = wait_answers(https + "/readyz", verify=tls)
    assert ready.http_version in ("HTTP/1.1", "HTTP/2")
    redirect = httpx.get(f"http://localhost:{stack.ports['HTTP_PORT']}/readyz", timeout=10)
    assert redirect.status_code == 308 and redirect.headers["location"].startswith("https://localhost")
    played = game()
    through_caddy, direct = played.public_state(https, verify=tls), played.public_state()
    assert (through_caddy["version"], through_caddy["game"]) == (direct["version"], direct["game"])
    async with seated(played, seat0=(https, {"ssl": tls})):  # seat 0 through Caddy (wss), seat 1 direct
        await played.play(2)
    shared["caddy_root"] = root


async def step_three_replicas_behind_caddy_keep_a_game_when_one_is_killed(stack: Stack) -> None:
    """The scale profile as the README writes it: 3 replicas, Redis, Caddy the only entry. The two seats'
    sockets sit on two different replicas; the replica of seat 0 is killed mid-game; seat 0 comes back
    through Caddy and the game goes on with every acknowledged move."""
    played = game()
    command = readme_command("--scale app=3")
    stack.shell(command.replace("\\\n", " "), timeout=900)
    stack.healthy("redis")
    stack.healthy("app")
    replicas = stack.containers("app")
    assert len(replicas) == 3, replicas
    for replica in replicas:
        ports = stack.podman("port", replica, check=False).stdout.strip()
        assert not ports, f"{replica} publishes {ports}: Caddy must be the only entry"
        shared_redis = stack.podman("exec", replica, "printenv", "REDIS_URL").stdout.strip()
        assert shared_redis == "redis://redis:6379/0", replica
    if "caddy_root" not in shared:
        pytest.fail("Caddy's root certificate is missing (the https step failed)")
    tls = ssl.create_default_context(cafile=str(shared["caddy_root"]))
    https = f"https://localhost:{stack.ports['HTTPS_PORT']}"
    wait_answers(https + "/readyz", verify=tls)
    direct = {seat: f"http://{stack.address(replicas[seat])}:8000" for seat in (0, 1)}
    moves = played.public_state(https, verify=tls)["game"]["moves"]
    try:
        for seat in (0, 1):
            await played.connect(seat, direct[seat])  # seat 0 on replica 0, seat 1 on replica 1
        await played.play(4)
        stack.podman("kill", replicas[0])
        seat0 = played.clients.pop(0)
        await asyncio.wait_for(seat0.closed.wait(), 30)
        await seat0.close()
        # Back through Caddy, as a browser reconnects: again until Caddy has left the dead replica out.
        deadline = time.monotonic() + 60
        while True:
            try:
                await played.connect(0, https, ssl=tls, open_timeout=10)
                break
            except (OSError, TimeoutError, websockets.WebSocketException):
                assert time.monotonic() < deadline, "could not reconnect through Caddy"
                await asyncio.sleep(0.5)
        await played.play(4)
    finally:
        await played.close()
    state = played.public_state(https, verify=tls)
    assert state["game"]["moves"] == moves + 8, "every acknowledged move is kept"
    assert state["version"] == played.acked[-1]


async def test_the_readme_hosting_steps_under_podman(stack: Stack) -> None:
    """The steps in order, in one test (they share the stack and the game; xdist keeps no order between
    tests). DEPLOY_FULL=1 adds the https and scale profiles."""
    step_up_brings_both_services_up_healthy_and_serving(stack)
    await step_a_game_is_played_over_a_websocket_through_the_published_port(stack)
    await step_restarting_the_app_keeps_the_game_and_its_moves(stack)
    await step_the_readme_backup_makes_a_dump_and_its_restore_brings_the_table_back(stack)
    await step_an_upgrade_serves_the_new_code_with_the_game_intact(stack)
    if not full_asked():
        return
    await step_the_https_profile_answers_over_tls_with_caddy_in_front(stack)
    await step_three_replicas_behind_caddy_keep_a_game_when_one_is_killed(stack)
