"""Turn queries: turns are reached through a live session of their owner, never directly."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import Integer, Select, bindparam, select

from pantheon.db.models import LLMCall, Message, ToolCallRow, Turn, TurnDecision
from pantheon.db.repository import Repository, as_uuid
from pantheon.sessions.lineage import Lineage
from pantheon.sessions.repository import SessionRepository


class HistoryMessage(NamedTuple):
    """What a turn's prompt needs of one stored message."""

    role: str
    content: str
    agent_key: str | None
    agent_name: str | None
    turn_id: uuid.UUID
    created_at: datetime


_HISTORY_COLUMNS = (
    Message.role, Message.content, Message.agent_key, Message.agent_name, Message.turn_id,
    Message.created_at,
)  # fmt: skip
_NEWEST_FIRST = (Message.created_at.desc(), Message.seq.desc())


def _own_history(after: bool) -> Select[*tuple[Any, ...]]:
    """The history query of a session that is no fork, built once (of the table's columns:
    no ORM loading): its own messages, newer than ``:after`` if ``after``, newest first,
    ``:limit`` of them."""
    m = Message.__table__.c
    columns = [m[column.key] for column in _HISTORY_COLUMNS]
    query = select(*columns).where(m.session_id == bindparam("session_id"))
    if after:
        query = query.where(m.created_at > bindparam("after", type_=m.created_at.type))
    newest_first = (m.created_at.desc(), m.seq.desc())
    return query.order_by(*newest_first).limit(bindparam("limit", type_=Integer))


_OWN_HISTORY = {after: _own_history(after) for after in (False, True)}


class TurnRepository(Repository):
    async def get(self, owner_id: uuid.UUID, turn_id: str | uuid.UUID) -> Turn | None:
        """The turn, if it belongs to a live session of ``owner_id``."""
        ident = as_uuid(turn_id)
        if ident is None:
            return None
        turn = await self.session.get(Turn, ident)
        if turn is None:
            return None
        owned = await SessionRepository(self.session).get(owner_id, turn.session_id)
        return turn if owned is not None else None

    async def by_idempotency_key(self, session_id: uuid.UUID, key: str) -> Turn | None:
        query = select(Turn).where(Turn.session_id == session_id, Turn.idempotency_key == key)
        return await self.session.scalar(query)

    async def decision(self, turn_id: uuid.UUID) -> TurnDecision | None:
        """The decision on the paused turn ``turn_id``, if one was claimed (its continuation
        may still be running, or never have been recorded)."""
        return await self.session.get(TurnDecision, turn_id)

    async def latest(self, session_id: uuid.UUID) -> Turn | None:
        """The session's newest turn (turns of a session never overlap)."""
        query = (
            select(Turn)
            .where(Turn.session_id == session_id)
            .order_by(Turn.created_at.desc(), Turn.id.desc())
            .limit(1)
        )
        return await self.session.scalar(query)

    async def list_for_session(
        self, session_id: uuid.UUID, *, limit: int, offset: int
    ) -> tuple[list[Turn], int]:
        query = select(Turn).where(Turn.session_id == session_id).order_by(Turn.created_at, Turn.id)
        return await self.page(query, limit=limit, offset=offset)

    async def latest_of_mode(self, session_id: uuid.UUID, mode: str) -> Turn | None:
        """The session's newest turn run in ``mode`` (a pipeline's ``rerun_from`` source)."""
        query = (
            select(Turn)
            .where(Turn.session_id == session_id, Turn.mode == mode)
            .order_by(Turn.created_at.desc(), Turn.id.desc())
            .limit(1)
        )
        return await self.session.scalar(query)

    async def messages(self, turn_id: uuid.UUID) -> list[Message]:
        query = select(Message).where(Message.turn_id == turn_id).order_by(Message.seq)
        return list((await self.session.scalars(query)).all())

    async def llm_calls(self, turn_id: uuid.UUID) -> list[LLMCall]:
        query = select(LLMCall).where(LLMCall.turn_id == turn_id).order_by(LLMCall.seq)
        return list((await self.session.scalars(query)).all())

    async def tool_calls(self, turn_id: uuid.UUID) -> list[ToolCallRow]:
        query = select(ToolCallRow).where(ToolCallRow.turn_id == turn_id).order_by(ToolCallRow.seq)
        return list((await self.session.scalars(query)).all())

    async def history(
        self, lineage: Lineage, limit: int, *, after: datetime | None = None
    ) -> tuple[list[HistoryMessage], bool]:
        """The newest ``limit`` messages of a session's lineage (newer than ``after``, the
        session summary's end, when given), oldest first, and whether older ones were left
        unread.

        Reads only those rows, through ``ix_messages_session_history``: turns of a lineage
        never overlap, so message time orders turns, and ``seq`` orders within one. Only
        the columns a prompt needs, as plain tuples: every turn reads up to
        ``history_messages`` of them, and ORM objects cost more than the query. A session
        that is no fork (the usual case) runs a statement built once."""
        if not lineage.is_fork:
            query = _OWN_HISTORY[after is not None]
            params = {"session_id": lineage.session_id, "after": after, "limit": limit + 1}
            result = await self.session.execute(query, params)
        else:
            query = select(*_HISTORY_COLUMNS).where(lineage.messages())
            if after is not None:
                query = query.where(Message.created_at > after)
            result = await self.session.execute(query.order_by(*_NEWEST_FIRST).limit(limit + 1))
        rows = [HistoryMessage(*row) for row in result.all()]
        return list(reversed(rows[:limit])), len(rows) > limit
