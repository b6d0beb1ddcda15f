"""Replicas started at the same moment each run ``python -m app migrate``: the migrations run one after the
other (a PostgreSQL advisory lock), so none of them fails on a half-made schema."""

from __future__ import annotations

import subprocess
import sys

import pytest
from sqlalchemy import text

from app.store import Store
from tests.server_process import ROOT, server_env

pytestmark = [pytest.mark.postgres]


async def test_migrate_commands_started_together_all_succeed(pg_url: str) -> None:
    env = server_env(pg_url, 8000)
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "app", "migrate"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        for _ in range(4)
    ]
    outputs = [proc.communicate(timeout=120)[0].decode() for proc in procs]
    assert [proc.returncode for proc in procs] == [0] * len(procs), "\n".join(outputs)[-3000:]
    store = Store(pg_url)
    try:
        async with store.sessions() as session:
            heads = (await session.execute(text("SELECT version_num FROM alembic_version"))).all()
        assert len(heads) == 1
    finally:
        await store.close()
