"""Alembic environment: async engines (aiosqlite, asyncpg), URL from the config or DATABASE_URL."""

from __future__ import annotations

import asyncio
from logging.config import fileConfig

from alembic import context
from sqlalchemy.engine import Connection

from app.store.db import make_engine, normalize_url
from app.store.models import Base

config = context.config
if config.config_file_name is not None and config.attributes.get("configure_logger", True):
    fileConfig(config.config_file_name, disable_existing_loggers=False)

target_metadata = Base.metadata


def database_url() -> str:
    url = config.get_main_option("sqlalchemy.url")
    if url:
        return normalize_url(url)
    from app.config import get_settings

    return normalize_url(get_settings().database_url)


def run_offline() -> None:
    context.configure(url=database_url(), target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def do_run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


async def run_async() -> None:
    engine = make_engine(database_url())
    try:
        async with engine.connect() as connection:
            await connection.run_sync(do_run)
            await connection.commit()
    finally:
        await engine.dispose()


def run_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:  # a caller lent us a sync connection (e.g. inside run_sync)
        do_run(connection)
        return
    asyncio.run(run_async())


if context.is_offline_mode():
    run_offline()
else:
    run_online()
