"""Session queries. A session is visible only while it, and its room or agent, is live.

Lists and reads carry two derived figures, computed in SQL rather than stored, so nothing
has to keep them in step with the turns: the last activity (the newest turn's start, else
the session's creation) and the first user message (for automatic titles).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, exists, func, or_, select, update
from sqlalchemy.orm import aliased

from pantheon.db.eval_models import EvalResult
from pantheon.db.models import Agent, ChatSession, Message, Room, Turn, TurnDecision
from pantheon.db.repository import Repository, as_uuid
from pantheon.rooms.repository import visible_to


@dataclass(frozen=True, slots=True)
class SessionRow:
    """A session with its derived figures."""

    session: ChatSession
    last_activity_at: datetime
    first_message: str | None
    turn_count: int
    awaiting_approval: bool = False


def like_pattern(text: str) -> str:
    """``%text%`` with LIKE's wildcards and the escape character taken literally."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _last_activity() -> ColumnElement[Any]:
    newest = (
        select(func.max(Turn.created_at)).where(Turn.session_id == ChatSession.id).scalar_subquery()
    )
    return func.coalesce(newest, ChatSession.created_at)


def _first_message() -> ColumnElement[Any]:
    return (
        select(Turn.message)
        .where(Turn.session_id == ChatSession.id)
        .order_by(Turn.created_at, Turn.id)
        .limit(1)
        .scalar_subquery()
    )


def _awaiting_approval() -> ColumnElement[Any]:
    """The newest turn waits for a person's decision nobody has claimed yet (the rule the
    turn preflight applies before refusing a message with 409)."""
    latest = aliased(Turn)
    newest = (
        select(latest.id)
        .where(latest.session_id == ChatSession.id)
        .order_by(latest.created_at.desc(), latest.id.desc())
        .limit(1)
        .correlate(ChatSession)
        .scalar_subquery()
    )
    decided = select(TurnDecision.turn_id).where(TurnDecision.turn_id == Turn.id)
    return exists(
        select(Turn.id).where(
            Turn.id == newest, Turn.status == "awaiting_approval", ~exists(decided)
        )
    )


def _turn_count() -> ColumnElement[Any]:
    return select(func.count(Turn.id)).where(Turn.session_id == ChatSession.id).scalar_subquery()


class SessionRepository(Repository):
    def _live(self, owner_id: uuid.UUID) -> Select[ChatSession]:
        return (
            select(ChatSession)
            .outerjoin(Room, Room.id == ChatSession.room_id)
            .outerjoin(Agent, Agent.id == ChatSession.agent_id)
            .where(
                ChatSession.owner_id == owner_id,
                ChatSession.deleted_at.is_(None),
                or_(
                    and_(
                        ChatSession.room_id.is_not(None),
                        Room.deleted_at.is_(None),
                        visible_to(owner_id),  # a member who left loses their sessions too
                    ),
                    and_(ChatSession.agent_id.is_not(None), Agent.deleted_at.is_(None)),
                ),
            )
        )

    async def get(self, owner_id: uuid.UUID, session_id: str | uuid.UUID) -> ChatSession | None:
        ident = as_uuid(session_id)
        if ident is None:
            return None
        return await self.session.scalar(self._live(owner_id).where(ChatSession.id == ident))

    async def figures(self, row: ChatSession) -> SessionRow:
        """``row`` with its derived figures (after a create, a read or a patch)."""
        query = select(
            _last_activity(), _first_message(), _turn_count(), _awaiting_approval()
        ).where(ChatSession.id == row.id)
        last, first, count, waiting = (await self.session.execute(query)).one()
        return SessionRow(row, last, first, int(count), bool(waiting))

    async def list_for(
        self,
        owner_id: uuid.UUID,
        *,
        room_id: uuid.UUID | None = None,
        agent_id: uuid.UUID | None = None,
        search: str | None = None,
        include_evals: bool = False,
        limit: int,
        offset: int,
    ) -> tuple[list[SessionRow], int]:
        """A room's sessions, or an agent's standalone sessions, latest activity first.

        ``search`` matches the title or any visible message (the user's included), as a
        literal substring, case-insensitively (ASCII only on SQLite). An evaluation's case
        sessions (those an ``eval_results`` row names, ADR 0019) only with ``include_evals``."""
        owner = ChatSession.room_id == room_id if room_id else ChatSession.agent_id == agent_id
        base = self._live(owner_id).where(owner)
        if not include_evals:
            case_of_a_run = select(EvalResult.id).where(EvalResult.session_id == ChatSession.id)
            base = base.where(~exists(case_of_a_run))
        if search:
            pattern = like_pattern(search)
            in_messages = exists(
                select(Message.id).where(
                    Message.session_id == ChatSession.id,
                    Message.visible.is_(True),
                    Message.content.ilike(pattern, escape="\\"),
                )
            )
            base = base.where(or_(ChatSession.title.ilike(pattern, escape="\\"), in_messages))
        total_query = select(func.count()).select_from(base.subquery())
        total = int((await self.session.execute(total_query)).scalar_one())
        activity = _last_activity().label("last_activity_at")
        query = (
            base.add_columns(activity, _first_message(), _turn_count(), _awaiting_approval())
            .order_by(activity.desc(), ChatSession.created_at.desc(), ChatSession.id)
            .limit(limit)
            .offset(offset)
        )
        result = await self.session.execute(query)
        rows = [SessionRow(s, last, first, int(n), bool(w)) for s, last, first, n, w in result]
        return rows, total

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

    async def name_if_untitled(self, session_id: uuid.UUID, title: str) -> None:
        """Give ``title`` to the session unless it got one meanwhile (its first turn's)."""
        await self.session.execute(
            update(ChatSession)
            .where(ChatSession.id == session_id, ChatSession.title == "")
            .values(title=title)
        )
