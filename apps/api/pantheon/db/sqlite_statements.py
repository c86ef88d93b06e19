"""aiosqlite connections that run each statement in one trip to their thread, not four.

SQLAlchemy's aiosqlite adapter makes a cursor, executes, fetches the rows and closes the
cursor as four awaits, and each is a hand-off to the connection's thread and back (a
futex wake there, a self-pipe wake here). A one-agent turn's statements came to ~30 such
trips, and when the server is otherwise idle each costs a sleep and a wake-up of both
threads (docs/benchmarks.md, B11). Here ``cursor()`` hands out a cursor whose
``execute`` does all four in the thread at once and keeps the rows; fetching and
closing it are then free. Statements, results, errors and transactions are sqlite3's,
unchanged; the rows of a query are read whole, as the adapter already did for every
cursor that is not server-side (Pantheon opens none).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import aiosqlite

# What one statement left behind: description, rowcount, lastrowid, rows.
_Outcome = tuple[Any, int, int | None, list[Any]]


def _run(
    connection: sqlite3.Connection, sql: str, parameters: Any, many: bool
) -> _Outcome:  # in the connection's thread
    cursor = connection.cursor()
    try:
        if many:
            cursor.executemany(sql, parameters)
        else:
            cursor.execute(sql, () if parameters is None else parameters)
        rows = cursor.fetchall() if cursor.description else []
        return cursor.description, cursor.rowcount, cursor.lastrowid, rows
    finally:
        cursor.close()


class StatementCursor:
    """The part of ``aiosqlite.Cursor`` SQLAlchemy uses, one thread trip per statement."""

    arraysize = 1

    def __init__(self, connection: OneTripConnection) -> None:
        self._connection = connection
        self.description: Any = None
        self.rowcount = -1
        self.lastrowid: int | None = None
        self._rows: list[Any] = []

    async def __aenter__(self) -> StatementCursor:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        self._rows = []

    async def execute(self, sql: str, parameters: Any = None) -> StatementCursor:
        await self._run(sql, parameters, many=False)
        return self

    async def executemany(self, sql: str, parameters: Sequence[Any]) -> StatementCursor:
        await self._run(sql, parameters, many=True)
        return self

    async def _run(self, sql: str, parameters: Any, *, many: bool) -> None:
        outcome = await self._connection.in_thread(_run, sql, parameters, many)
        self.description, self.rowcount, self.lastrowid, self._rows = outcome

    async def fetchall(self) -> list[Any]:
        rows, self._rows = self._rows, []
        return rows

    async def fetchmany(self, size: int | None = None) -> list[Any]:
        count = self.arraysize if size is None else size
        rows, self._rows = self._rows[:count], self._rows[count:]
        return rows

    async def fetchone(self) -> Any:
        return self._rows.pop(0) if self._rows else None

    async def close(self) -> None:
        self._rows = []


class OneTripConnection(aiosqlite.Connection):
    """An ``aiosqlite.Connection`` whose cursors are ``StatementCursor``s."""

    def cursor(self) -> StatementCursor:  # type: ignore[override]
        return StatementCursor(self)

    async def in_thread(self, work: Callable[..., _Outcome], *args: Any) -> _Outcome:
        """``work(sqlite3 connection, *args)`` in the connection's thread."""
        # aiosqlite's own queue to its thread; it is untyped.
        outcome: _Outcome = await self._execute(work, self._conn, *args)  # type: ignore[no-untyped-call]
        return outcome


def connector(database: str, **options: Any) -> Callable[[], Any]:
    """An ``async_creator`` for SQLAlchemy: a started ``OneTripConnection`` to ``database``
    with ``sqlite3.connect`` options (what the dialect's ``create_connect_args`` gives)."""

    async def connect() -> OneTripConnection:
        connection = OneTripConnection(partial(sqlite3.connect, database, **options), 64)
        connection._thread.daemon = True  # as SQLAlchemy's adapter does for aiosqlite's own
        await connection  # starts the thread and connects
        return connection

    return connect
