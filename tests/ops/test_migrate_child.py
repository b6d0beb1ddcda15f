"""``python -m app`` applies the migrations in a child process (``app.store.migrate``) before it serves:
a fresh database is brought to head and served; a database the migrations cannot reach stops the server
with a clear message instead of serving."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory

from app.store.db import alembic_config
from tests.api.wsclient import free_port
from tests.server_process import ROOT, server_env, start_server_process, stop


@pytest.mark.slow
def test_the_server_migrates_a_fresh_database_then_serves(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'fresh.db'}"
    proc = start_server_process(url, free_port(), tmp_path / "server.log")
    try:
        with sqlite3.connect(tmp_path / "fresh.db") as db:
            (version,) = db.execute("select version_num from alembic_version").fetchone()
        assert version == ScriptDirectory.from_config(alembic_config(url)).get_current_head()
    finally:
        stop(proc)


@pytest.mark.slow
def test_the_server_does_not_serve_when_the_migrations_fail(tmp_path: Path) -> None:
    # A SQLite file under a regular file: nothing to wait for at start (app.waiting), and the migrations
    # cannot make the database. (An unreachable PostgreSQL is now waited for first: tests/ops/test_waiting.)
    (tmp_path / "not-a-directory").write_text("")
    broken = f"sqlite+aiosqlite:///{tmp_path / 'not-a-directory' / 'game.db'}"
    result = subprocess.run(
        [sys.executable, "-m", "app"],
        cwd=ROOT,
        env=server_env(broken, free_port()),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "the migrations failed" in result.stderr, result.stderr[-2000:]
