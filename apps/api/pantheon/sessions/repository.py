"""Session queries. A session is visible only while its room or agent is live."""

from __future__ import annotations

import uuid

from sqlalchemy import Select, and_, or_, select

from pantheon.db.models import Agent, ChatSession, Message, Room, Turn
from pantheon.db.repository import Repository, as_uuid


class SessionRepository(Repository):
    def _live(self, owner_id: uuid.UUID) -> Select[ChatSession]:
        return (
            select(ChatSession)
            .outerjoin(Room, Room.id == ChatSession.room_id)
            .outerjoin(Agent, Agent.id == ChatSession.agent_id)
            .where(
                ChatSession.owner_id == owner_id,
                or_(
                    and_(ChatSession.room_id.is_not(None), Room.deleted_at.is_(None)),
                    and_(ChatSession.agent_id.is_not(None), Agent.deleted_at.is_(None)),
                ),
            )
        )

    async def get(self, owner_id: uuid.UUID, session_id: str | uuid.UUID) -> ChatSession | None:
        ident = as_uuid(session_id)
        if ident is None:
            return None
        return await self.session.scalar(self._live(owner_id).where(ChatSession.id == ident))

    async def list_for(
        self,
        owner_id: uuid.UUID,
        *,
        room_id: uuid.UUID | None = None,
        agent_id: uuid.UUID | None = None,
        limit: int,
        offset: int,
    ) -> tuple[list[ChatSession], int]:
        """A room's sessions, or an agent's standalone sessions, newest first."""
        owner = ChatSession.room_id == room_id if room_id else ChatSession.agent_id == agent_id
        query = (
            self._live(owner_id)
            .where(owner)
            .order_by(ChatSession.created_at.desc(), ChatSession.id)
        )
        return await self.page(query, limit=limit, offset=offset)

    async def messages(
        self, session_id: uuid.UUID, *, limit: int, offset: int
    ) -> tuple[list[Message], int]:
        """Messages oldest first: by turn start, then the explicit sequence inside a turn."""
        query = (
            select(Message)
            .join(Turn, Turn.id == Message.turn_id)
            .where(Message.session_id == session_id, Message.visible.is_(True))
            .order_by(Turn.created_at, Turn.id, Message.seq)
        )
        return await self.page(query, limit=limit, offset=offset)

    def add(self, row: ChatSession) -> None:
        self.session.add(row)
