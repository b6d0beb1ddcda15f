"""The compose file and Dockerfile describe what a self-hoster runs: check their shape."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def load_compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_services_and_dependency_order() -> None:
    services = load_compose()["services"]
    assert set(services) == {"app", "db", "caddy", "redis"}
    assert services["db"]["image"].startswith("postgres:16")
    assert services["app"]["depends_on"]["db"]["condition"] == "service_healthy"
    assert services["caddy"]["depends_on"]["app"]["condition"] == "service_healthy"
    assert services["caddy"]["profiles"] == ["https", "scale"], "Caddy only runs when asked for"
    assert services["redis"]["profiles"] == ["scale"], "Redis only runs with several replicas"


def test_every_long_running_service_has_a_healthcheck_and_restart_policy() -> None:
    services = load_compose()["services"]
    for name in ("app", "db"):
        assert services[name]["healthcheck"]["test"], name
        assert services[name]["restart"] == "unless-stopped", name
    assert "readyz" in " ".join(services["app"]["healthcheck"]["test"])


def test_database_lives_on_a_named_volume() -> None:
    compose = load_compose()
    mount = compose["services"]["db"]["volumes"][0]
    volume = mount.split(":")[0]
    assert volume in compose["volumes"]


def test_app_talks_to_the_compose_database_with_asyncpg() -> None:
    env = load_compose()["services"]["app"]["environment"]
    assert env["DATABASE_URL"].startswith("postgresql+asyncpg://")
    assert "@db:5432/" in env["DATABASE_URL"]
    assert env["HOST"] == "0.0.0.0"


def test_dockerfile_runs_as_non_root_with_healthcheck_and_entrypoint() -> None:
    text = (ROOT / "Dockerfile").read_text()
    assert "\nUSER game" in text
    assert "HEALTHCHECK" in text
    assert 'ENTRYPOINT ["/usr/local/bin/entrypoint.sh"]' in text
    script = (ROOT / "docker" / "entrypoint.sh").read_text()
    commands = [
        line.strip() for line in script.splitlines() if line.strip() and not line.lstrip().startswith("#")
    ]
    migrate = next(i for i, line in enumerate(commands) if line.endswith("python -m app migrate"))
    serve = next(i for i, line in enumerate(commands) if line.endswith("python -m app serve"))
    assert migrate < serve, "migrations run before the server"
    assert commands[serve].startswith("exec "), "the server replaces the shell, so it receives SIGTERM"


def test_env_example_lists_every_setting() -> None:
    from app.config import Settings

    example = (ROOT / ".env.example").read_text()
    names = {line.split("=", 1)[0].lstrip("# ").strip() for line in example.splitlines() if "=" in line}
    missing = {field.upper() for field in Settings.model_fields} - names
    assert not missing, f".env.example lacks {sorted(missing)}"


def test_the_app_believes_forwarding_headers_from_caddy_only() -> None:
    """Behind Caddy every client arrives from Caddy's address: the app must trust exactly that address,
    and it must be fixed (inside the compose network's subnet)."""
    import ipaddress

    compose = load_compose()
    services = compose["services"]
    caddy_address = services["caddy"]["networks"]["default"]["ipv4_address"]
    subnet = compose["networks"]["default"]["ipam"]["config"][0]["subnet"]
    assert ipaddress.ip_address(caddy_address) in ipaddress.ip_network(subnet)
    trusted = services["app"]["environment"]["TRUSTED_PROXIES"]
    assert trusted == f"${{TRUSTED_PROXIES:-{caddy_address}}}"


def test_the_app_container_sets_no_file_limit_a_host_may_refuse() -> None:
    """A `ulimits` entry above the host's own hard limit stops the container from starting (podman in a
    sandbox allowing 20,000 open files refused 65,536); the server raises its soft limit to the hard one
    itself (app.__main__.raise_file_limit), so the engine's default is enough."""
    assert "ulimits" not in load_compose()["services"]["app"]


def test_the_scale_file_leaves_caddy_as_the_only_entry() -> None:
    """With several replicas no host port can go to all of them (podman-compose refuses a port range of
    another length): docker-compose.scale.yml removes the app's published port and points it at Redis."""
    text = (ROOT / "docker-compose.scale.yml").read_text()
    assert "ports: !reset []" in text
    loader = type("Loader", (yaml.SafeLoader,), {})
    loader.add_constructor("!reset", lambda _loader, _node: None)
    app = yaml.load(text, Loader=loader)["services"]["app"]
    assert app["ports"] is None
    assert app["environment"]["REDIS_URL"] == "${REDIS_URL:-redis://redis:6379/0}"
    caddy_ports = load_compose()["services"]["caddy"]["ports"]
    assert caddy_ports == ["${HTTP_PORT:-80}:80", "${HTTPS_PORT:-443}:443"]


def test_the_scale_profile_runs_redis_and_balances_every_replica_through_caddy() -> None:
    """`--profile scale --scale app=N`: the replicas share Redis (when REDIS_URL is set), wait for it when it
    runs, and Caddy's configuration (checked by Caddy itself) balances every replica it finds in DNS, a
    table's requests on one replica by the hash of the code in their path (a client's own ``X-Table``
    dropped)."""
    import json
    import os
    import shutil
    import subprocess
    import tempfile

    services = load_compose()["services"]
    assert services["redis"]["healthcheck"]["test"] == ["CMD", "redis-cli", "ping"]
    assert services["redis"]["restart"] == "unless-stopped"
    redis_dependency = services["app"]["depends_on"]["redis"]
    assert redis_dependency == {"condition": "service_healthy", "required": False}
    assert services["app"]["environment"]["REDIS_URL"] == "${REDIS_URL:-}"
    assert "./docker/Caddyfile:/etc/caddy/Caddyfile:ro" in services["caddy"]["volumes"]
    assert "/etc/caddy/Caddyfile" in services["caddy"]["command"]
    caddy = shutil.which("caddy") or "/usr/bin/caddy"
    if not os.path.exists(caddy):
        import pytest

        from tests.conftest import services_required

        if services_required():
            pytest.fail("caddy is not installed (REQUIRE_SERVICES=1)")
        pytest.skip("caddy is not installed")
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "HOME": home, "XDG_DATA_HOME": home, "XDG_CONFIG_HOME": home, "DOMAIN": "x.org"}
        args = [caddy, "adapt", "--config", str(ROOT / "docker" / "Caddyfile"), "--adapter", "caddyfile"]
        adapted = subprocess.run(args, env=env, capture_output=True, text=True, timeout=30, check=True)
    config = json.loads(adapted.stdout)
    server = config["apps"]["http"]["servers"]["srv0"]
    assert server["routes"][0]["match"] == [{"host": ["x.org"]}]
    steps = server["routes"][0]["handle"][0]["routes"][0]["handle"][0][
        "routes"
    ]  # the `route` block, in order
    dropped, named, proxied = steps
    assert dropped == {"handle": [{"handler": "headers", "request": {"delete": ["X-Table"]}}]}
    assert named["match"] == [
        {"path_regexp": {"name": "table", "pattern": "^/(?:ws|api/rooms)/([A-Za-z0-9]+)"}}
    ]
    assert named["handle"] == [
        {"handler": "headers", "request": {"set": {"X-Table": ["{http.regexp.table.1}"]}}}
    ]
    (proxy,) = proxied["handle"]
    assert proxy["dynamic_upstreams"] == {
        "name": "app",
        "port": "8000",
        "refresh": 1_000_000_000,
        "source": "a",
    }
    # A table's sockets and REST calls on one replica: the hash of the code in the path.
    assert proxy["load_balancing"]["selection_policy"] == {"policy": "header", "field": "X-Table"}
    assert proxy["health_checks"]["passive"]["unhealthy_status"] == [503]
