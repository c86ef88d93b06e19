"""Alembic environment: async engine, URL from Pantheon settings unless the caller set one."""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy import Connection

from pantheon.db.engine import create_engine
from pantheon.db.tables import METADATA
from pantheon.knowledge.keyword import include_name
from pantheon.settings import Settings

config = context.config
target_metadata = METADATA


def _url() -> str:
    url = config.attributes.get("database_url")
    return str(url) if url else Settings().resolved_database_url


def _configure(connection: Connection) -> None:
    sqlite = connection.dialect.name == "sqlite"
    if sqlite:
        # A batch migration copies a table, drops the old one and renames the copy; with
        # foreign keys enforced, dropping a table other rows point at (users) fails. They
        # are checked once the migrations are done instead (SQLite's documented recipe).
        connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=sqlite,
        compare_type=True,
        include_name=include_name,
    )
    with context.begin_transaction():
        context.run_migrations()
        if sqlite and (broken := connection.exec_driver_sql("PRAGMA foreign_key_check").all()):
            raise RuntimeError(f"migration left rows whose foreign keys point nowhere: {broken}")


async def _run_online() -> None:
    engine = create_engine(_url())
    try:
        async with engine.connect() as connection:
            await connection.run_sync(_configure)
            await connection.commit()
    finally:
        await engine.dispose()


if context.is_offline_mode():
    context.configure(url=_url(), target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()
else:
    asyncio.run(_run_online())
