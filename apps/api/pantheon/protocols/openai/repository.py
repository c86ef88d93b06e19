"""The facade's queries: every live room a caller may see (owned or shared) and agent of
an owner, agents by key, and the
removal of a session the facade opened for a turn that could not start."""

from __future__ import annotations

import uuid

from sqlalchemy import delete, func, select

from pantheon.db.models import Agent, ChatSession, Room, Turn
from pantheon.db.repository import Repository
from pantheon.rooms.repository import visible_to


class FacadeRepository(Repository):
    async def rooms(self, owner_id: uuid.UUID) -> list[Room]:
        query = (
            select(Room)
            .where(visible_to(owner_id), Room.deleted_at.is_(None))
            .order_by(Room.created_at, Room.id)
        )
        return list((await self.session.scalars(query)).all())

    async def agents(self, owner_id: uuid.UUID, key: str | None = None) -> list[Agent]:
        """Live agents, oldest first; only those whose key equals ``key`` (any case)."""
        query = select(Agent).where(Agent.owner_id == owner_id, Agent.deleted_at.is_(None))
        if key is not None:
            query = query.where(func.lower(Agent.key) == key.lower())
        query = query.order_by(Agent.created_at, Agent.id)
        return list((await self.session.scalars(query)).all())

    async def delete_unused_session(self, session_id: uuid.UUID) -> None:
        """Delete the session unless a turn refers to it (it was opened for nothing)."""
        used = select(Turn.id).where(Turn.session_id == session_id).exists()
        await self.session.execute(delete(ChatSession).where(ChatSession.id == session_id, ~used))
