"""AG-UI threads are Pantheon sessions: the session a ``threadId`` names (a new one of the
room when the id is new).

A client picks its thread ids (UUIDs), so an unknown one opens a session with that very
id: the next run on the thread finds it. An id that is another user's session (or a
deleted one) is 404, a session of another room of the caller's 422.
"""

from __future__ import annotations

import uuid

from sqlalchemy.exc import IntegrityError

from pantheon.db.base import utcnow
from pantheon.db.engine import Database
from pantheon.db.uow import unit_of_work
from pantheon.errors import NotFound, Unprocessable
from pantheon.protocols.agui.repository import ThreadRepository
from pantheon.protocols.openai.repository import FacadeRepository
from pantheon.sessions.repository import SessionRepository
from pantheon.sessions.service import titled_by


async def open_thread(
    db: Database, owner_id: uuid.UUID, room_id: uuid.UUID, thread: uuid.UUID, text: str
) -> bool:
    """Open ``thread`` as the caller's session in this room, or check that it is one
    (opened by a run posted at the same time, say); whether it was opened now."""
    async with unit_of_work(db, write=True) as session:
        values = {
            "id": thread, "owner_id": owner_id, "room_id": room_id,
            "title": titled_by("AG-UI", text), "created_at": utcnow(),
        }  # fmt: skip
        opened = await ThreadRepository(session).open(values)
        # Read after the insert: a session a concurrent run committed is seen now.
        chat = await SessionRepository(session).get(owner_id, thread)
    if chat is None:  # another user's session, or a deleted one
        raise NotFound(f"threadId {thread} is not one of your threads")
    if chat.room_id != room_id:
        raise Unprocessable(f"threadId {thread} is a thread of another room")
    return opened


async def drop_unused(db: Database, thread: uuid.UUID) -> None:
    """Remove a thread opened for a run that never started (no turn refers to it). A turn
    recorded on it meanwhile (PostgreSQL refuses the delete then) keeps it."""
    try:
        async with unit_of_work(db, write=True) as session:
            await FacadeRepository(session).delete_unused_session(thread)
    except IntegrityError:
        return
