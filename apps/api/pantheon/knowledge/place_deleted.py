"""A deleted room or agent takes its waiting ingest with it.

Rooms and agents are soft-deleted and their documents stay, but nothing can search them any
more: parsing and embedding them would only hold the parser and the workers against
everyone else's uploads. So the place's pending documents end ``failed`` in the delete's
own transaction (no replica resumes them; a running ingest sees the status and stops) and,
once that is committed, this process's worker drops or cancels them at once.
"""

from __future__ import annotations

import uuid

from fastapi import BackgroundTasks
from sqlalchemy.ext.asyncio import AsyncSession

from pantheon.knowledge.ingest import IngestWorker
from pantheon.knowledge.repository import DocumentRepository
from pantheon.knowledge.service import PlaceKind, place_key


async def stop_ingest_of_place(
    session: AsyncSession,
    tasks: BackgroundTasks,
    worker: IngestWorker,
    kind: PlaceKind,
    ident: uuid.UUID,
) -> None:
    """Fail the place's pending documents ("its room was deleted") and, after the
    response (so after the commit), stop their ingest."""
    stopped = await DocumentRepository(session).fail_pending(
        place_key(kind, ident), f"its {kind} was deleted"
    )
    if stopped:
        tasks.add_task(worker.cancel, *stopped)
