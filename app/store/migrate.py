"""``python -m app.store.migrate``: apply the migrations to the configured database, then exit.

``python -m app`` (the server) runs this in a child process before it serves, rather than in its own
process: Alembic, its migration scripts and the synchronous engine they use would otherwise stay resident
for the whole life of the serving process (about 15 MB of its memory, measured with
``benchmarks/load.py``). The child reads the same settings (environment and ``.env``) as the server.
"""

from __future__ import annotations

import subprocess
import sys

from app.config import get_settings
from app.logs import configure_logging

from .db import upgrade_head


def main() -> None:
    settings = get_settings()
    configure_logging(settings.log_level, log_format=settings.log_format)
    upgrade_head(settings.database_url)


def migrate_in_child() -> None:
    """Run ``main`` in a fresh interpreter and wait for it; SystemExit if the migrations failed."""
    result = subprocess.run([sys.executable, "-m", "app.store.migrate"], check=False)
    if result.returncode != 0:
        raise SystemExit(f"the migrations failed (exit status {result.returncode}); not serving")


if __name__ == "__main__":
    main()
