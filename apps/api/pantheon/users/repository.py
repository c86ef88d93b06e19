"""User, API key and usage queries (admin and authentication only: no owner scoping)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import Date, cast, func, select

from pantheon.db.models import ApiKey, ChatSession, LLMCall, Turn, User, charged_usd
from pantheon.db.repository import Repository, as_uuid


class UserRepository(Repository):
    async def get(self, user_id: str | uuid.UUID) -> User | None:
        ident = as_uuid(user_id)
        return None if ident is None else await self.session.get(User, ident)

    async def by_login(self, login: str) -> User | None:
        return await self.session.scalar(select(User).where(User.login == login))

    async def list_page(self, *, limit: int, offset: int) -> tuple[list[User], int]:
        query = select(User).order_by(User.created_at, User.id)
        return await self.page(query, limit=limit, offset=offset)

    async def keys_of(self, user_ids: list[uuid.UUID]) -> dict[uuid.UUID, list[ApiKey]]:
        query = select(ApiKey).where(ApiKey.user_id.in_(user_ids)).order_by(ApiKey.created_at)
        found: dict[uuid.UUID, list[ApiKey]] = {uid: [] for uid in user_ids}
        for key in await self.session.scalars(query):
            found[key.user_id].append(key)
        return found

    async def key_by_prefix(self, prefix: str) -> ApiKey | None:
        return await self.session.scalar(select(ApiKey).where(ApiKey.prefix == prefix))

    def add(self, row: User | ApiKey) -> None:
        self.session.add(row)

    async def usage(self, user_id: uuid.UUID, since: datetime) -> list[Any]:
        """Rows of (day, model, calls, input tokens, output tokens, cost) since ``since``."""
        if self.session.get_bind().dialect.name == "postgresql":
            day: Any = cast(func.timezone("UTC", LLMCall.started_at), Date)
        else:  # SQLite stores UTC text; date() takes its first ten characters
            day = func.date(LLMCall.started_at)
        query = (
            select(
                day.label("day"),
                LLMCall.model,
                func.count().label("calls"),
                func.sum(LLMCall.input_tokens).label("input_tokens"),
                func.sum(LLMCall.output_tokens).label("output_tokens"),
                func.sum(charged_usd()).label("cost_usd"),
            )
            .join(Turn, Turn.id == LLMCall.turn_id)
            .join(ChatSession, ChatSession.id == Turn.session_id)
            .where(ChatSession.owner_id == user_id, LLMCall.started_at >= since)
            .group_by(day, LLMCall.model)
            .order_by(day, LLMCall.model)
        )
        return list((await self.session.execute(query)).all())
