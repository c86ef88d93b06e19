"""PostgreSQL for tests: a throwaway database per test on the server at PANTHEON_TEST_PG_DSN.

A migrated database is a clone (``CREATE DATABASE ... TEMPLATE``) of one template that this
test process migrated once; an empty one (for the tests of the migrations themselves) is
made plainly. Outside CI the ``postgres`` tests are skipped, with the reason shown, when no
server answers; with ``CI=true`` they are mandatory and an unreachable server fails the run.
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
# Per test process (one per xdist worker), per server DSN: the migrated template's name.
# Unique per process, so runs from other checkouts on the same server never share one.
_templates: dict[str, str] = {}


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


def _url(dsn: str, name: str) -> str:
    base = dsn.rsplit("/", 1)[0].replace("postgresql://", "postgresql+asyncpg://", 1)
    return f"{base}/{name}"


async def _migrated_template(admin: asyncpg.Connection, dsn: str) -> str:
    """The name of this process's migrated template on ``dsn``'s server, made on first use:
    Alembic runs once per worker, every later migrated database is a file-level copy."""
    name = _templates.get(dsn)
    if name is None:
        name = f"pantheon_template_{uuid.uuid4().hex[:12]}"
        await admin.execute(f'CREATE DATABASE "{name}"')
        try:
            await upgrade(_url(dsn, name))
        except BaseException:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            raise
        _templates[dsn] = name
    return name


async def drop_templates() -> None:
    """Drop the templates this process made (the session's end calls it)."""
    while _templates:
        dsn, name = _templates.popitem()
        with contextlib.suppress(OSError, asyncpg.PostgresError):
            admin = await asyncpg.connect(dsn, timeout=5)
            try:
                await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            finally:
                await admin.close()


@contextlib.asynccontextmanager
async def throwaway_database(
    admin: asyncpg.Connection, dsn: str, migrated: bool
) -> AsyncIterator[str]:
    """A new database on ``admin``'s server (``dsn`` names it), dropped afterwards; closes
    ``admin``. Shared by the plain and the pgvector PostgreSQL fixtures."""
    name = f"pantheon_test_{uuid.uuid4().hex[:12]}"
    try:
        if migrated:
            template = await _migrated_template(admin, dsn)
            await admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
        else:
            await admin.execute(f'CREATE DATABASE "{name}"')
        yield _url(dsn, name)
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()
