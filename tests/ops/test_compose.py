"""The compose file and Dockerfile describe what a self-hoster runs: check their shape."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def load_compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_services_and_dependency_order() -> None:
    services = load_compose()["services"]
    assert set(services) == {"app", "db", "caddy"}
    assert services["db"]["image"].startswith("postgres:16")
    assert services["app"]["depends_on"]["db"]["condition"] == "service_healthy"
    assert services["caddy"]["depends_on"]["app"]["condition"] == "service_healthy"
    assert services["caddy"]["profiles"] == ["https"], "Caddy only runs when asked for"


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
