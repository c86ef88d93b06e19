"""Session routes: create in a room or on one agent, read, list, read messages."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, status

from pantheon.agents.repository import AgentRepository
from pantheon.deps import UoWDep, UserIdDep
from pantheon.errors import not_found
from pantheon.rooms.repository import RoomRepository
from pantheon.schemas import Page, PageDep, page_of
from pantheon.sessions.repository import SessionRepository
from pantheon.sessions.schemas import MessageRead, SessionCreate, SessionRead
from pantheon.sessions.service import SessionService

router = APIRouter(tags=["sessions"])


def _service(uow: UoWDep) -> SessionService:
    return SessionService(SessionRepository(uow))


ServiceDep = Annotated[SessionService, Depends(_service)]


@router.post("/v1/rooms/{room_id}/sessions", status_code=status.HTTP_201_CREATED)
async def create_room_session(
    room_id: str, service: ServiceDep, user: UserIdDep, data: SessionCreate | None = None
) -> SessionRead:
    """Open a session in a room."""
    row = await service.create_in_room(user, room_id, data or SessionCreate())
    return SessionRead.model_validate(row)


@router.post("/v1/agents/{agent_id}/sessions", status_code=status.HTTP_201_CREATED)
async def create_agent_session(
    agent_id: str, service: ServiceDep, user: UserIdDep, data: SessionCreate | None = None
) -> SessionRead:
    """Open a standalone session with one agent."""
    row = await service.create_standalone(user, agent_id, data or SessionCreate())
    return SessionRead.model_validate(row)


@router.get("/v1/rooms/{room_id}/sessions")
async def list_room_sessions(
    room_id: str, service: ServiceDep, user: UserIdDep, page: PageDep
) -> Page[SessionRead]:
    """List a room's sessions, newest first."""
    room = await RoomRepository(service.repo.session).get(user, room_id)
    if room is None:
        raise not_found("room", room_id)
    rows, total = await service.repo.list_for(
        user, room_id=room.id, limit=page.limit, offset=page.offset
    )
    return page_of(SessionRead, rows, total, page)


@router.get("/v1/agents/{agent_id}/sessions")
async def list_agent_sessions(
    agent_id: str, service: ServiceDep, user: UserIdDep, page: PageDep
) -> Page[SessionRead]:
    """List an agent's standalone sessions, newest first."""
    agent = await AgentRepository(service.repo.session).get(user, agent_id)
    if agent is None:
        raise not_found("agent", agent_id)
    rows, total = await service.repo.list_for(
        user, agent_id=agent.id, limit=page.limit, offset=page.offset
    )
    return page_of(SessionRead, rows, total, page)


@router.get("/v1/sessions/{session_id}")
async def get_session(session_id: str, service: ServiceDep, user: UserIdDep) -> SessionRead:
    """Read one session."""
    return SessionRead.model_validate(await service.get(user, session_id))


@router.get("/v1/sessions/{session_id}/messages")
async def list_messages(
    session_id: str, service: ServiceDep, user: UserIdDep, page: PageDep
) -> Page[MessageRead]:
    """The session's conversation, oldest first, in turn order then message sequence."""
    row = await service.get(user, session_id)
    rows, total = await service.repo.messages(row.id, limit=page.limit, offset=page.offset)
    return page_of(MessageRead, rows, total, page)
