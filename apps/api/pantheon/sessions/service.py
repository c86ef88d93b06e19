"""Session rules: a session belongs to a live room, or to one live agent (standalone).

Titles: a session keeps the title it was given; without one, it reads as the first line
of its first message (``auto_title``), so naming a conversation is never a chore. The
first turn stores that title as it starts, so a session is named while that turn runs.
"""

from __future__ import annotations

import uuid

from sqlalchemy import delete

from pantheon.agents.repository import AgentRepository
from pantheon.db.base import utcnow
from pantheon.db.models import ChatSession
from pantheon.db.share_models import SessionShare
from pantheon.errors import not_found
from pantheon.rooms.access import room_for
from pantheon.schemas import Page, PageParams
from pantheon.sessions.repository import SessionRepository, SessionRow
from pantheon.sessions.schemas import (
    SessionCreate,
    SessionRead,
    SessionSearch,
    SessionSummaryRead,
    SessionUpdate,
    auto_title,
)


def session_read(row: SessionRow) -> SessionRead:
    """The one place a session row becomes its read schema."""
    chat = row.session
    derived = auto_title(row.first_message)
    title = chat.title or derived
    return SessionRead(
        id=chat.id,
        room_id=chat.room_id,
        agent_id=chat.agent_id,
        title=title,
        # The first turn stores its automatic title as it starts (before it is recorded).
        title_is_auto=bool(title) and title == derived,
        turn_count=row.turn_count,
        awaiting_approval=row.awaiting_approval,
        last_activity_at=row.last_activity_at,
        created_at=chat.created_at,
        summary=_summary(chat),
        replay_of=chat.replay_of,
        parent_id=chat.parent_id,
        fork_turn_id=chat.fork_turn_id,
    )


def _summary(chat: ChatSession) -> SessionSummaryRead | None:
    if chat.summary is None or chat.summary_through_at is None:
        return None
    return SessionSummaryRead(
        text=chat.summary,
        through_turn_id=chat.summary_through_turn_id,
        through_at=chat.summary_through_at,
        messages=chat.summary_messages,
        updated_at=chat.summary_updated_at or chat.summary_through_at,
    )


TITLE_CHARS = 80


def titled_by(source: str, message: str) -> str:
    """A session title for a conversation started from ``source`` (a protocol), from the
    first line of its first message, cut to ``TITLE_CHARS``."""
    first = message.strip().splitlines()[0] if message.strip() else "chat"
    first = first if len(first) <= TITLE_CHARS else first[: TITLE_CHARS - 3] + "..."
    return f"{source}: {first}"


class SessionService:
    def __init__(self, repo: SessionRepository) -> None:
        self.repo = repo

    async def get(self, owner_id: uuid.UUID, session_id: str | uuid.UUID) -> ChatSession:
        found = await self.repo.get(owner_id, session_id)
        if found is None:
            raise not_found("session", session_id)
        return found

    async def read(self, owner_id: uuid.UUID, session_id: str) -> SessionRead:
        return session_read(await self.repo.figures(await self.get(owner_id, session_id)))

    async def update(
        self, owner_id: uuid.UUID, session_id: str, data: SessionUpdate
    ) -> SessionRead:
        row = await self.get(owner_id, session_id)
        row.title = data.title.strip()
        await self.repo.session.flush()
        return session_read(await self.repo.figures(row))

    async def delete(self, owner_id: uuid.UUID, session_id: str) -> None:
        """Hide the session and its turns (soft delete, as for rooms and agents); its share
        link goes (docs/adr/0042)."""
        row = await self.get(owner_id, session_id)
        row.deleted_at = utcnow()
        await self.repo.session.execute(
            delete(SessionShare).where(SessionShare.session_id == row.id)
        )

    async def list_in_room(
        self, owner_id: uuid.UUID, room_id: str, search: SessionSearch, page: PageParams
    ) -> Page[SessionRead]:
        room = (await room_for(self.repo.session, owner_id, room_id)).room
        rows, total = await self.repo.list_for(
            owner_id,
            room_id=room.id,
            search=search.q,
            include_evals=search.include_evals,
            limit=page.limit,
            offset=page.offset,
        )
        return _page(rows, total, page)

    async def list_for_agent(
        self, owner_id: uuid.UUID, agent_id: str, search: SessionSearch, page: PageParams
    ) -> Page[SessionRead]:
        agent = await AgentRepository(self.repo.session).get(owner_id, agent_id)
        if agent is None:
            raise not_found("agent", agent_id)
        rows, total = await self.repo.list_for(
            owner_id,
            agent_id=agent.id,
            search=search.q,
            include_evals=search.include_evals,
            limit=page.limit,
            offset=page.offset,
        )
        return _page(rows, total, page)

    async def create_in_room(
        self, owner_id: uuid.UUID, room_id: str, data: SessionCreate
    ) -> SessionRead:
        """A session of the caller's own in a room they may see (a viewer runs turns in it)."""
        room = (await room_for(self.repo.session, owner_id, room_id)).room
        return await self._add(owner_id, data, room_id=room.id)

    async def create_standalone(
        self, owner_id: uuid.UUID, agent_id: str, data: SessionCreate
    ) -> SessionRead:
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
    ) -> SessionRead:
        row = ChatSession(
            owner_id=owner_id,
            room_id=room_id,
            agent_id=agent_id,
            title=data.title.strip(),
            created_at=utcnow(),
        )
        self.repo.add(row)
        await self.repo.session.flush()
        return session_read(SessionRow(row, row.created_at, None, 0))


def _page(rows: list[SessionRow], total: int, page: PageParams) -> Page[SessionRead]:
    items = [session_read(row) for row in rows]
    return Page[SessionRead](items=items, total=total, limit=page.limit, offset=page.offset)
