"""What running-turn code reads back from the record: a committed turn's event log and
the turn an Idempotency-Key already names (live/ keeps its own queries: it never imports
``pantheon.turns``)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

from sqlalchemy import select

from pantheon.db.engine import Database
from pantheon.db.models import Turn, TurnEventLog
from pantheon.db.uow import unit_of_work
from pantheon.live import event_log
from pantheon.live.streamed import StoredEvent


async def recorded_events(db: Database, turn_id: str) -> list[str] | None:
    """A committed turn's events (JSON texts); None while the database has no such turn."""
    async with unit_of_work(db, write=False) as session:
        query = select(TurnEventLog.data).where(TurnEventLog.turn_id == uuid.UUID(turn_id))
        log: bytes | None = await session.scalar(query)
    return None if log is None else await event_log.decode_async(log)


async def replay_events(db: Database, turn_id: uuid.UUID, after: int) -> AsyncIterator[StoredEvent]:
    """A finished turn's events after ``after``, from its event log."""
    texts = await recorded_events(db, str(turn_id)) or []
    for seq, data in enumerate(texts[after:], start=after + 1):
        yield StoredEvent(seq, data)


async def recorded_with_key(
    db: Database, session_id: str, key: str
) -> tuple[str, str | None] | None:
    """The id and request digest of the session's committed turn with this key, if any."""
    query = select(Turn.id, Turn.request_hash).where(
        Turn.session_id == uuid.UUID(session_id), Turn.idempotency_key == key
    )
    async with unit_of_work(db, write=False) as session:
        row = (await session.execute(query)).first()
    return None if row is None else (str(row.id), row.request_hash)
