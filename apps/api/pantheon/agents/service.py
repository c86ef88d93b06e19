"""Agent rules: allowed model aliases, known tools, one key per owner, soft delete that leaves
rosters."""

from __future__ import annotations

import uuid
from collections.abc import Collection
from typing import Protocol

from sqlalchemy import delete

from pantheon.agents.repository import AgentRepository
from pantheon.agents.schemas import AgentCreate, AgentUpdate
from pantheon.db.base import utcnow
from pantheon.db.models import Agent, RoomAgent
from pantheon.db.repository import apply_patch
from pantheon.errors import Conflict, Unprocessable, not_found
from pantheon.llm.registry import ModelRegistry
from pantheon.users.access import require_alias


class ToolCatalog(Protocol):
    """What agent validation needs from the tool box: ``ValueError`` for a bad entry."""

    def validate(self, entries: Collection[str]) -> object: ...


class AgentService:
    def __init__(
        self,
        repo: AgentRepository,
        registry: ModelRegistry,
        default_model: str,
        tools: ToolCatalog,
    ):
        self.repo = repo
        self.registry = registry
        self.default_model = default_model
        self.tools = tools

    async def get(self, owner_id: uuid.UUID, agent_id: str) -> Agent:
        agent = await self.repo.get(owner_id, agent_id)
        if agent is None:
            raise not_found("agent", agent_id)
        return agent

    async def _allowed_model(self, owner_id: uuid.UUID, alias: str) -> str:
        """422 unless the alias is configured and on the owner's allowlist."""
        return await require_alias(self.repo.session, self.registry, owner_id, alias)

    def _check_tools(self, entries: list[str]) -> None:
        """422 naming the available built-ins or servers for an unknown or malformed entry."""
        try:
            self.tools.validate(entries)
        except ValueError as exc:
            raise Unprocessable(f"tools: {exc}") from None

    async def _check_key_free(self, owner_id: uuid.UUID, key: str, exclude: Agent | None) -> None:
        existing = await self.repo.by_key(owner_id, key)
        if existing is not None and existing is not exclude:
            raise Conflict(f"an agent with key '{key}' already exists ({existing.id})")

    async def create(self, owner_id: uuid.UUID, data: AgentCreate) -> Agent:
        model = await self._allowed_model(owner_id, data.model or self.default_model)
        self._check_tools(data.tools)
        await self._check_key_free(owner_id, data.key, None)
        agent = Agent(
            owner_id=owner_id,
            key=data.key,
            name=data.name,
            role_prompt=data.role_prompt,
            model=model,
            tools=list(data.tools),
            created_at=utcnow(),
        )
        self.repo.add(agent)
        await self.repo.session.flush()
        return agent

    async def update(self, owner_id: uuid.UUID, agent_id: str, data: AgentUpdate) -> Agent:
        agent = await self.get(owner_id, agent_id)
        changes = data.model_dump(exclude_unset=True)
        if changes.get("model") is not None:
            await self._allowed_model(owner_id, changes["model"])
        if changes.get("tools") is not None:
            self._check_tools(changes["tools"])
        if changes.get("key") is not None:
            await self._check_key_free(owner_id, changes["key"], agent)
        apply_patch(agent, changes)
        agent.updated_at = utcnow()
        await self.repo.session.flush()
        return agent

    async def delete(self, owner_id: uuid.UUID, agent_id: str) -> uuid.UUID:
        """Soft-delete the agent and take it out of every roster; its id, for its
        documents' ingest to stop."""
        agent = await self.get(owner_id, agent_id)
        agent.deleted_at = utcnow()
        await self.repo.session.execute(delete(RoomAgent).where(RoomAgent.agent_id == agent.id))
        return agent.id
