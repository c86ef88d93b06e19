"""SQLite statements through SQLAlchemy take one trip to the connection's thread each, and
behave as sqlite3 does: rows, row counts, many-row inserts, errors and rollbacks."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiosqlite
import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine

from pantheon.db.engine import create_engine
from pantheon.db.sqlite_statements import OneTripConnection


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'one-trip.db'}")
    async with engine.begin() as conn:
        await conn.execute(text("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT UNIQUE)"))
    yield engine
    await engine.dispose()


@pytest.fixture
def trips(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The statements that went to a connection's thread, one entry per trip."""
    seen: list[str] = []
    real: Any = aiosqlite.Connection._execute  # untyped in aiosqlite

    async def counted(self: aiosqlite.Connection, fn: Any, *args: Any, **kwargs: Any) -> Any:
        assert isinstance(self, OneTripConnection)
        seen.append(str(args[1]) if len(args) > 1 else getattr(fn, "__name__", "?"))
        return await real(self, fn, *args, **kwargs)

    monkeypatch.setattr(aiosqlite.Connection, "_execute", counted)
    return seen


async def test_a_query_and_an_insert_take_one_trip_each(
    engine: AsyncEngine, trips: list[str]
) -> None:
    async with engine.connect() as conn:
        trips.clear()  # the pool's own checks (rollback on checkin) are not statements
        inserted = await conn.execute(text("INSERT INTO notes (body) VALUES ('first')"))
        rows = (await conn.execute(text("SELECT id, body FROM notes"))).all()
        statements = list(trips)
        await conn.commit()
    assert inserted.rowcount == 1
    assert [tuple(row) for row in rows] == [(1, "first")]
    assert statements == ["INSERT INTO notes (body) VALUES ('first')", "SELECT id, body FROM notes"]


async def test_many_rows_fetched_one_by_one_and_inserted_at_once(engine: AsyncEngine) -> None:
    bodies = [{"body": f"note {n}"} for n in range(50)]
    async with engine.begin() as conn:
        done = await conn.execute(text("INSERT INTO notes (body) VALUES (:body)"), bodies)
        assert done.rowcount == 50
        result = await conn.execute(text("SELECT body FROM notes ORDER BY id"))
        assert result.fetchone() == ("note 0",)
        assert [r[0] for r in result.fetchmany(2)] == ["note 1", "note 2"]
        assert len(result.fetchall()) == 47
        assert (await conn.execute(text("SELECT body FROM notes WHERE id = -1"))).first() is None


async def test_errors_are_sqlite3s_and_a_failed_transaction_rolls_back(
    engine: AsyncEngine,
) -> None:
    twice = "INSERT INTO notes (body) VALUES ('kept?')"
    with pytest.raises(IntegrityError):
        await _in_one_transaction(engine, twice, twice)
    with pytest.raises(OperationalError, match="no such table"):
        await _in_one_transaction(engine, "SELECT * FROM missing")
    async with engine.connect() as conn:
        count = (await conn.execute(text("SELECT count(*) FROM notes"))).scalar_one()
    assert count == 0


async def _in_one_transaction(engine: AsyncEngine, *statements: str) -> None:
    async with engine.begin() as conn:
        for statement in statements:
            await conn.execute(text(statement))
