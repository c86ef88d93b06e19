"""The unit of work: the only code in the service that commits.

A unit either commits once, when its block ends without error, or rolls back. Read-only
units never commit. On SQLite a writing unit holds the process-wide write lock for its whole
life, so writers queue instead of failing with "database is locked".
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from sqlalchemy.ext.asyncio import AsyncSession

from pantheon.db.engine import Database


@contextlib.asynccontextmanager
async def unit_of_work(db: Database, *, write: bool) -> AsyncIterator[AsyncSession]:
    """Open a session; commit it once on success if ``write``; roll back on error."""
    async with contextlib.AsyncExitStack() as stack:
        if write and db.write_lock is not None:
            await stack.enter_async_context(db.write_lock)
        session = await stack.enter_async_context(db.sessions())
        try:
            yield session
        except BaseException:
            await session.rollback()
            raise
        if write:
            await session.commit()
        # A read-only unit just closes: close() ends the transaction without expiring the
        # loaded rows, so callers may still read them after the unit is gone.
