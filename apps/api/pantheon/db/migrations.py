"""Run Alembic from code (``pantheon migrate``, tests) and tell whether the schema is current."""

from __future__ import annotations

import asyncio
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

ROOT = Path(__file__).resolve().parents[4]


def alembic_config(url: str) -> Config:
    """Config pointing at the repo's alembic/ scripts with ``url`` as the target."""
    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(ROOT / "alembic"))
    config.attributes["database_url"] = url
    return config


def head_revision() -> str | None:
    return ScriptDirectory.from_config(alembic_config("")).get_current_head()


async def upgrade(url: str, revision: str = "head") -> None:
    """Upgrade in a worker thread: Alembic's env runs its own event loop for async URLs."""
    await asyncio.to_thread(command.upgrade, alembic_config(url), revision)


async def downgrade(url: str, revision: str = "base") -> None:
    await asyncio.to_thread(command.downgrade, alembic_config(url), revision)


def _current(connection: Connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()


async def schema_is_current(engine: AsyncEngine) -> bool:
    async with engine.connect() as conn:
        current = await conn.run_sync(_current)
    return current is not None and current == head_revision()
