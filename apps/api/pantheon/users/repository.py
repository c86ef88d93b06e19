"""User, API key and usage queries (admin and authentication only: no owner scoping)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import Date, cast, func, select

from pantheon.db.models import ApiKey, ChatSession, LLMCall, Turn, User, charged_usd
from pantheon.db.repository import Repository, as_uuid
from pantheon.users.auth import LOCAL_USER_NAME


class UserRepository(Repository):
    async def get(self, user_id: str | uuid.UUID) -> User | None:
        ident = as_uuid(user_id)
        return None if ident is None else await self.session.get(User, ident)

    async def by_login(self, login: str) -> User | None:
        return await self.session.scalar(select(User).where(User.login == login))

    async def by_email(self, email: str) -> User | None:
        """The user with this address, compared case-insensitively."""
        query = select(User).where(func.lower(User.email) == email.lower()).limit(1)
        return await self.session.scalar(query)

    async def list_page(
        self, *, limit: int, offset: int, status: str | None = None
    ) -> tuple[list[User], int]:
        query = select(User).order_by(User.created_at, User.id)
        if status is not None:
            query = query.where(User.status == status)
        return await self.page(query, limit=limit, offset=offset)

    async def lock_active_admins(self) -> list[uuid.UUID]:
        """The active admins but the built-in ``local`` user (no key, no password: it
        administers nothing in keys mode), their rows locked until the unit ends
        (PostgreSQL; SQLite's writers are serialised already), so two admins demoting each
        other at once cannot both pass the last-admin check: the second re-reads the first
        one's change."""
        query = select(User.id).where(
            User.role == "admin", User.status == "active", User.login != LOCAL_USER_NAME
        )
        return list(await self.session.scalars(query.order_by(User.id).with_for_update()))

    async def keys_of(self, user_ids: list[uuid.UUID]) -> dict[uuid.UUID, list[ApiKey]]:
        query = select(ApiKey).where(ApiKey.user_id.in_(user_ids)).order_by(ApiKey.created_at)
        found: dict[uuid.UUID, list[ApiKey]] = {uid: [] for uid in user_ids}
        for key in await self.session.scalars(query):
            found[key.user_id].append(key)
        return found

    async def key(self, key_id: str | uuid.UUID) -> ApiKey | None:
        ident = as_uuid(key_id)
        return None if ident is None else await self.session.get(ApiKey, ident)

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
