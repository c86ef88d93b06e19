"""SQL aggregates over ``llm_calls``: one GROUP BY per breakdown, in the database."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import ColumnElement, Select, func, literal, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute

from pantheon.db.models import ChatSession, LLMCall, Turn, charged_usd
from pantheon.db.repository import Repository
from pantheon.engine.speakers import MANAGER_KEY

MESSAGE_PREVIEW = 120


def _figures() -> list[ColumnElement[Any]]:
    return [
        func.count(LLMCall.id).label("calls"),
        func.coalesce(func.sum(LLMCall.input_tokens), 0).label("input_tokens"),
        func.coalesce(func.sum(LLMCall.output_tokens), 0).label("output_tokens"),
        func.coalesce(func.sum(charged_usd()), 0.0).label("cost_usd"),
        func.coalesce(func.avg(LLMCall.latency_ms), 0.0).label("latency_ms_avg"),
        func.coalesce(func.max(LLMCall.latency_ms), 0).label("latency_ms_max"),
        func.avg(LLMCall.ttft_ms).label("ttft_ms_avg"),
    ]


class UsageRepository(Repository):
    """Aggregates the calls of the turns ``scope`` selects (a session's, a room's)."""

    def __init__(self, session: AsyncSession, scope: ColumnElement[bool]) -> None:
        super().__init__(session)
        self.scope = scope

    @classmethod
    def of_session(cls, session: AsyncSession, session_id: uuid.UUID) -> UsageRepository:
        return cls(session, Turn.session_id == session_id)

    @classmethod
    def of_room(
        cls, session: AsyncSession, room_id: uuid.UUID, owner_id: uuid.UUID
    ) -> UsageRepository:
        """The room's turns in ``owner_id``'s sessions (a shared room's members each see
        their own spending, never another's)."""
        rooms_sessions = select(ChatSession.id).where(
            ChatSession.room_id == room_id, ChatSession.owner_id == owner_id
        )
        return cls(session, Turn.session_id.in_(rooms_sessions))

    def _calls(self, *columns: ColumnElement[Any] | InstrumentedAttribute[Any]) -> Select[Any]:
        return (
            select(*columns, *_figures())
            .select_from(LLMCall)
            .join(Turn, Turn.id == LLMCall.turn_id)
            .where(self.scope)
        )

    async def total(self) -> Any:
        return (await self.session.execute(self._calls())).one()

    async def by_agent(self) -> list[Any]:
        key = func.coalesce(LLMCall.agent_key, literal(MANAGER_KEY)).label("agent_key")
        query = self._calls(key).group_by(key).order_by(func.sum(charged_usd()).desc(), key)
        return list((await self.session.execute(query)).all())

    async def by_model(self) -> list[Any]:
        query = (
            self._calls(LLMCall.model)
            .group_by(LLMCall.model)
            .order_by(func.sum(charged_usd()).desc(), LLMCall.model)
        )
        return list((await self.session.execute(query)).all())

    def _turns(self) -> Select[Any]:
        columns = (
            Turn.id.label("turn_id"),
            Turn.session_id,
            Turn.status,
            func.substr(Turn.message, 1, MESSAGE_PREVIEW).label("message"),
            Turn.created_at,
        )
        return self._calls(*columns).group_by(*columns)

    async def by_turn(self, limit: int) -> list[Any]:
        query = self._turns().order_by(Turn.created_at.desc(), Turn.id).limit(limit)
        return list((await self.session.execute(query)).all())

    async def costliest_turn(self) -> Any | None:
        tokens = func.sum(LLMCall.input_tokens + LLMCall.output_tokens)
        query = (
            self._turns().order_by(func.sum(charged_usd()).desc(), tokens.desc(), Turn.id).limit(1)
        )
        return (await self.session.execute(query)).first()

    async def turn_count(self) -> int:
        """How many turns made at least one call."""
        query = (
            select(func.count(func.distinct(LLMCall.turn_id)))
            .join(Turn, Turn.id == LLMCall.turn_id)
            .where(self.scope)
        )
        return int(await self.session.scalar(query) or 0)
