"""Session routes: create in a room or on one agent, read, rename, delete, list, search,
fork."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query, Response, status

from pantheon.deps import ServicesDep, UoWDep, UserIdDep
from pantheon.schemas import Page, PageDep, page_of
from pantheon.sessions.fork import fork_session
from pantheon.sessions.repository import SessionRepository
from pantheon.sessions.schemas import (
    ForkCreate,
    MessageRead,
    SessionCreate,
    SessionRead,
    SessionSearch,
    SessionUpdate,
)
from pantheon.sessions.service import SessionService

router = APIRouter(tags=["sessions"])


def _service(uow: UoWDep) -> SessionService:
    return SessionService(SessionRepository(uow))


ServiceDep = Annotated[SessionService, Depends(_service)]
SearchDep = Annotated[
    str | None,
    Query(
        min_length=1,
        max_length=200,
        description="Only sessions whose title or messages contain this text (literally)",
    ),
]


EvalsDep = Annotated[
    bool,
    Query(description="Also list the sessions evaluation runs made for their cases"),
]


@router.post("/v1/rooms/{room_id}/sessions", status_code=status.HTTP_201_CREATED)
async def create_room_session(
    room_id: str, service: ServiceDep, user: UserIdDep, data: SessionCreate | None = None
) -> SessionRead:
    """Open a session in a room."""
    return await service.create_in_room(user, room_id, data or SessionCreate())


@router.post("/v1/agents/{agent_id}/sessions", status_code=status.HTTP_201_CREATED)
async def create_agent_session(
    agent_id: str, service: ServiceDep, user: UserIdDep, data: SessionCreate | None = None
) -> SessionRead:
    """Open a standalone session with one agent."""
    return await service.create_standalone(user, agent_id, data or SessionCreate())


@router.get("/v1/rooms/{room_id}/sessions")
async def list_room_sessions(
    room_id: str,
    service: ServiceDep,
    user: UserIdDep,
    page: PageDep,
    q: SearchDep = None,
    include_evals: EvalsDep = False,
) -> Page[SessionRead]:
    """List a room's sessions, latest activity first; ``q`` searches titles and messages;
    evaluation sessions only with ``include_evals``."""
    return await service.list_in_room(user, room_id, SessionSearch(q, include_evals), page)


@router.get("/v1/agents/{agent_id}/sessions")
async def list_agent_sessions(
    agent_id: str,
    service: ServiceDep,
    user: UserIdDep,
    page: PageDep,
    q: SearchDep = None,
    include_evals: EvalsDep = False,
) -> Page[SessionRead]:
    """List an agent's standalone sessions, latest activity first; ``q`` searches them;
    evaluation sessions only with ``include_evals``."""
    return await service.list_for_agent(user, agent_id, SessionSearch(q, include_evals), page)


@router.get("/v1/sessions/{session_id}")
async def get_session(session_id: str, service: ServiceDep, user: UserIdDep) -> SessionRead:
    """Read one session."""
    return await service.read(user, session_id)


@router.patch("/v1/sessions/{session_id}")
async def update_session(
    session_id: str, data: SessionUpdate, service: ServiceDep, user: UserIdDep
) -> SessionRead:
    """Rename a session; an empty title goes back to the automatic one."""
    return await service.update(user, session_id, data)


@router.delete("/v1/sessions/{session_id}", status_code=status.HTTP_204_NO_CONTENT)
async def delete_session(session_id: str, service: ServiceDep, user: UserIdDep) -> Response:
    """Delete a session; it and its turns answer 404 from now on."""
    await service.delete(user, session_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.get("/v1/sessions/{session_id}/messages")
async def list_messages(
    session_id: str, service: ServiceDep, user: UserIdDep, page: PageDep
) -> Page[MessageRead]:
    """The session's conversation, oldest first, in turn order then message sequence."""
    row = await service.get(user, session_id)
    rows, total = await service.repo.messages(row.id, limit=page.limit, offset=page.offset)
    return page_of(MessageRead, rows, total, page)


@router.post("/v1/sessions/{session_id}/fork", status_code=status.HTTP_201_CREATED)
async def fork(
    session_id: str, data: ForkCreate, uow: UoWDep, services: ServicesDep, user: UserIdDep
) -> SessionRead:
    """A new session with this one's history up to and including ``turn_id``; no LLM call."""

    async def running_in(turn_id: str) -> str | None:
        live = await services.turns.live_turn(user, turn_id)
        return None if live is None else live.session_id

    return await fork_session(SessionRepository(uow), user, session_id, data.turn_id, running_in)
