"""PostgreSQL for tests: a throwaway database per test on the server at PANTHEON_TEST_PG_DSN.

Outside CI the ``postgres`` tests are skipped, with the reason shown, when no server answers;
with ``CI=true`` they are mandatory and an unreachable server fails the run.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import AsyncIterator

import asyncpg
import pytest

from pantheon.db.migrations import upgrade

DEFAULT_DSN = "postgresql://postgres:postgres@127.0.0.1:5432/postgres"


def admin_dsn() -> str:
    return os.environ.get("PANTHEON_TEST_PG_DSN", DEFAULT_DSN)


async def _admin_connection() -> asyncpg.Connection:
    try:
        return await asyncpg.connect(admin_dsn(), timeout=5)
    except (OSError, asyncpg.PostgresError) as exc:
        reason = f"PostgreSQL not reachable at {admin_dsn()}: {exc}"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason} (mandatory with CI=true)")
        pytest.skip(reason)


@contextlib.asynccontextmanager
async def postgres_database(*, migrated: bool = False) -> AsyncIterator[str]:
    """Create a database (empty, or at the latest migration), yield its SQLAlchemy async
    URL, drop it afterwards."""
    async with throwaway_database(await _admin_connection(), admin_dsn(), migrated) as url:
        yield url


@contextlib.asynccontextmanager
async def throwaway_database(
    admin: asyncpg.Connection, dsn: str, migrated: bool
) -> AsyncIterator[str]:
    """A new database on ``admin``'s server (``dsn`` names it), dropped afterwards; closes
    ``admin``. Shared by the plain and the pgvector PostgreSQL fixtures."""
    name = f"pantheon_test_{uuid.uuid4().hex[:12]}"
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        base = dsn.rsplit("/", 1)[0].replace("postgresql://", "postgresql+asyncpg://", 1)
        url = f"{base}/{name}"
        if migrated:
            await upgrade(url)
        yield url
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()
