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
from pantheon.db.models import ChatSession
from pantheon.db.uow import unit_of_work
from pantheon.errors import NotFound, Unprocessable
from pantheon.facade.repository import FacadeRepository
from pantheon.protocols.agui.repository import ThreadRepository
from pantheon.sessions.repository import SessionRepository
from pantheon.sessions.service import titled_by


async def _owned(db: Database, owner_id: uuid.UUID, thread: uuid.UUID) -> ChatSession | None:
    async with unit_of_work(db, write=False) as session:
        return await SessionRepository(session).get(owner_id, thread)


async def open_thread(
    db: Database, owner_id: uuid.UUID, room_id: uuid.UUID, thread: uuid.UUID, text: str
) -> bool:
    """Check that ``thread`` is the caller's session in this room, or open it; whether it
    was opened now."""
    for _attempt in range(2):  # a second run racing to open the same new thread
        chat = await _owned(db, owner_id, thread)
        if chat is not None:
            if chat.room_id != room_id:
                raise Unprocessable(f"threadId {thread} is a thread of another room")
            return False
        try:
            async with unit_of_work(db, write=True) as session:
                if await ThreadRepository(session).taken(thread):
                    raise NotFound(f"threadId {thread} is not one of your threads")
                row = ChatSession(
                    id=thread, owner_id=owner_id, room_id=room_id,
                    title=titled_by("AG-UI", text), created_at=utcnow(),
                )  # fmt: skip
                SessionRepository(session).add(row)
            return True
        except IntegrityError:
            continue
    raise NotFound(f"threadId {thread} is not one of your threads")


async def drop_unused(db: Database, thread: uuid.UUID) -> None:
    """Remove a thread opened for a run that never started (no turn refers to it)."""
    async with unit_of_work(db, write=True) as session:
        await FacadeRepository(session).delete_unused_session(thread)
