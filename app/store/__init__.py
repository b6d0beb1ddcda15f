"""Persistence: SQLAlchemy 2 async models, migrations runner, and the store's read/write functions."""

from .db import make_engine, normalize_url, run_migrations, upgrade_head
from .store import AckRecord, CodeTaken, LoadedTable, Store, StoreError, VersionConflict

__all__ = [
    "AckRecord",
    "CodeTaken",
    "LoadedTable",
    "Store",
    "StoreError",
    "VersionConflict",
    "make_engine",
    "normalize_url",
    "run_migrations",
    "upgrade_head",
]
