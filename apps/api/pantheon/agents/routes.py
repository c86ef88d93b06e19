"""Agent routes: thin translation between HTTP and ``AgentService``."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, BackgroundTasks, Depends, Response, status

from pantheon.agents.repository import AgentRepository
from pantheon.agents.schemas import AgentCreate, AgentRead, AgentUpdate
from pantheon.agents.service import AgentService
from pantheon.deps import RegistryDep, ServicesDep, SettingsDep, ToolBoxDep, UoWDep, UserIdDep
from pantheon.schemas import Page, PageDep, page_of

router = APIRouter(prefix="/v1/agents", tags=["agents"])


def _service(
    uow: UoWDep, registry: RegistryDep, settings: SettingsDep, tools: ToolBoxDep
) -> AgentService:
    return AgentService(AgentRepository(uow), registry, settings.default_model, tools)


ServiceDep = Annotated[AgentService, Depends(_service)]


@router.post("", status_code=status.HTTP_201_CREATED, response_model=AgentRead)
async def create_agent(data: AgentCreate, service: ServiceDep, user: UserIdDep) -> object:
    """Create an agent (role prompt + model alias)."""
    return await service.create(user, data)


@router.get("", response_model=Page[AgentRead])
async def list_agents(service: ServiceDep, user: UserIdDep, page: PageDep) -> object:
    """List your agents, oldest first."""
    items, total = await service.repo.list_page(user, limit=page.limit, offset=page.offset)
    return page_of(AgentRead, items, total, page)


@router.get("/{agent_id}", response_model=AgentRead)
async def get_agent(agent_id: str, service: ServiceDep, user: UserIdDep) -> object:
    """Read one agent."""
    return await service.get(user, agent_id)


@router.patch("/{agent_id}", response_model=AgentRead)
async def update_agent(
    agent_id: str, data: AgentUpdate, service: ServiceDep, user: UserIdDep
) -> object:
    """Change an agent; running turns keep the version they started with."""
    return await service.update(user, agent_id, data)


@router.delete("/{agent_id}", status_code=status.HTTP_204_NO_CONTENT)
async def delete_agent(
    agent_id: str, service: ServiceDep, user: UserIdDep, services: ServicesDep,
    tasks: BackgroundTasks,
) -> Response:  # fmt: skip
    """Delete an agent: it leaves every roster, no longer runs, and its pending documents
    are no longer ingested (they end failed)."""
    deleted = await service.delete(user, agent_id)
    await services.knowledge.place_deleted(service.repo.session, tasks, "agent", deleted)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
