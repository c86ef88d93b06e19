"""A stored response's request fields besides its input (the model name as sent,
background, instructions, previous response, metadata, creation time), kept as its turn
starts so that a GET from any replica answers with what the POST answered."""

from __future__ import annotations

import logging
import uuid

from sqlalchemy.ext.asyncio import AsyncSession

from pantheon.db.engine import Database
from pantheon.db.models import ResponseRequest
from pantheon.db.uow import unit_of_work
from pantheon.protocols.openai.responses.fold import ResponseMeta

log = logging.getLogger("pantheon.protocols.openai")


async def keep_request(db: Database, owner_id: uuid.UUID, turn_id: str, meta: ResponseMeta) -> None:
    """Store ``meta``'s fields for the response of ``turn_id``. The turn has started: a
    failure here is logged, and a later GET answers without these fields."""
    row = ResponseRequest(
        turn_id=uuid.UUID(turn_id),
        owner_id=owner_id,
        model=meta.model,
        background=bool(meta.background),
        instructions=meta.instructions,
        previous_response_id=meta.previous_response_id,
        metadata_=meta.metadata,
        created_at=meta.created_at,
    )
    try:
        async with unit_of_work(db, write=True) as session:
            session.add(row)
    except Exception:
        log.warning("response %s: its request fields were not stored", meta.id, exc_info=True)


async def kept_meta(
    session: AsyncSession, owner_id: uuid.UUID, turn_id: str, resp_id: str
) -> ResponseMeta | None:
    """The response's stored fields, if its request kept them (responses made before
    migration 0017 did not)."""
    row = await session.get(ResponseRequest, uuid.UUID(turn_id))
    if row is None or row.owner_id != owner_id:
        return None
    return ResponseMeta(
        resp_id,
        model=row.model,
        created_at=row.created_at,
        background=row.background,
        instructions=row.instructions,
        previous_response_id=row.previous_response_id,
        metadata=dict(row.metadata_),
    )
