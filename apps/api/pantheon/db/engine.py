"""Engine and session factory for SQLite (embedded default) and PostgreSQL (production).

SQLite gets foreign keys, WAL and a busy timeout on every connection, and one process-wide
write lock (see ``uow``), because SQLite allows a single writer and aborts a reader that
tries to upgrade mid-transaction. Its connections run each statement in one trip to their
thread (``sqlite_statements``).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.dialects.sqlite.aiosqlite import SQLiteDialect_aiosqlite
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

from pantheon.db.sqlite_statements import connector


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def create_engine(url: str) -> AsyncEngine:
    """An async engine with the per-dialect settings this service relies on."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        args, options = SQLiteDialect_aiosqlite().create_connect_args(parsed)
        creator = connector(*args, **options, timeout=30)
        engine = create_async_engine(url, async_creator=creator)
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
        return engine
    return create_async_engine(url, pool_size=10, max_overflow=20, pool_pre_ping=True)


@dataclass
class Database:
    """What the app holds for persistence: the engine, sessions, and SQLite's write lock."""

    engine: AsyncEngine
    sessions: async_sessionmaker[AsyncSession]
    write_lock: asyncio.Lock | None

    @classmethod
    def from_url(cls, url: str) -> Database:
        engine = create_engine(url)
        is_sqlite = engine.dialect.name == "sqlite"
        sessions = async_sessionmaker(engine, expire_on_commit=False, autoflush=False)
        return cls(engine, sessions, asyncio.Lock() if is_sqlite else None)

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    async def dispose(self) -> None:
        await self.engine.dispose()
