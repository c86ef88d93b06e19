"""Session rules: a session belongs to a live room, or to one live agent (standalone)."""

from __future__ import annotations

import uuid

from pantheon.agents.repository import AgentRepository
from pantheon.db.base import utcnow
from pantheon.db.models import ChatSession
from pantheon.errors import not_found
from pantheon.rooms.repository import RoomRepository
from pantheon.sessions.repository import SessionRepository
from pantheon.sessions.schemas import SessionCreate


class SessionService:
    def __init__(self, repo: SessionRepository) -> None:
        self.repo = repo

    async def get(self, owner_id: uuid.UUID, session_id: str | uuid.UUID) -> ChatSession:
        found = await self.repo.get(owner_id, session_id)
        if found is None:
            raise not_found("session", session_id)
        return found

    async def create_in_room(
        self, owner_id: uuid.UUID, room_id: str, data: SessionCreate
    ) -> ChatSession:
        room = await RoomRepository(self.repo.session).get(owner_id, room_id)
        if room is None:
            raise not_found("room", room_id)
        return await self._add(owner_id, data, room_id=room.id)

    async def create_standalone(
        self, owner_id: uuid.UUID, agent_id: str, data: SessionCreate
    ) -> ChatSession:
        agent = await AgentRepository(self.repo.session).get(owner_id, agent_id)
        if agent is None:
            raise not_found("agent", agent_id)
        return await self._add(owner_id, data, agent_id=agent.id)

    async def _add(
        self,
        owner_id: uuid.UUID,
        data: SessionCreate,
        *,
        room_id: uuid.UUID | None = None,
        agent_id: uuid.UUID | None = None,
    ) -> ChatSession:
        row = ChatSession(
            owner_id=owner_id,
            room_id=room_id,
            agent_id=agent_id,
            title=data.title,
            created_at=utcnow(),
        )
        self.repo.add(row)
        await self.repo.session.flush()
        return row
