"""Agent queries, always scoped to an owner and hiding soft-deleted rows."""

from __future__ import annotations

import uuid

from sqlalchemy import Select, func, select

from pantheon.db.models import Agent
from pantheon.db.repository import Repository, as_uuid


class AgentRepository(Repository):
    def _live(self, owner_id: uuid.UUID) -> Select[Agent]:
        return select(Agent).where(Agent.owner_id == owner_id, Agent.deleted_at.is_(None))

    async def get(self, owner_id: uuid.UUID, agent_id: str | uuid.UUID) -> Agent | None:
        ident = as_uuid(agent_id)
        if ident is None:
            return None
        return await self.session.scalar(self._live(owner_id).where(Agent.id == ident))

    async def by_key(self, owner_id: uuid.UUID, key: str) -> Agent | None:
        query = self._live(owner_id).where(func.lower(Agent.key) == key.lower())
        return await self.session.scalar(query)

    async def list_page(
        self, owner_id: uuid.UUID, *, limit: int, offset: int
    ) -> tuple[list[Agent], int]:
        query = self._live(owner_id).order_by(Agent.created_at, Agent.id)
        return await self.page(query, limit=limit, offset=offset)

    def add(self, agent: Agent) -> None:
        self.session.add(agent)
