"""Persistence: SQLAlchemy 2 async models, migrations runner, and the store's read/write functions."""

from .db import make_engine, normalize_url, run_migrations, upgrade_head
from .store import (
    AckRecord,
    ChatBound,
    ChatRecord,
    CodeTaken,
    LoadedTable,
    LoggedMove,
    MyTableRecord,
    PlayerRecord,
    PushSubscription,
    ReplayedMove,
    Store,
    StoreError,
    TableAsk,
    Tail,
    VersionConflict,
    WriteRefused,
)

__all__ = [
    "AckRecord",
    "ChatBound",
    "ChatRecord",
    "CodeTaken",
    "LoadedTable",
    "LoggedMove",
    "PushSubscription",
    "MyTableRecord",
    "PlayerRecord",
    "ReplayedMove",
    "Store",
    "StoreError",
    "TableAsk",
    "Tail",
    "VersionConflict",
    "WriteRefused",
    "make_engine",
    "normalize_url",
    "run_migrations",
    "upgrade_head",
]
