"""User and key administration, and per-user usage reports. Never commits (see ``uow``)."""

from __future__ import annotations

import uuid
from collections import defaultdict
from datetime import UTC, datetime, timedelta

from pantheon.db.base import utcnow
from pantheon.db.models import ApiKey, User
from pantheon.errors import Conflict, NotFound, not_found
from pantheon.secret_tokens import token_digest
from pantheon.users.keys import generate_key
from pantheon.users.passwords import check_password_length, hash_password
from pantheon.users.repository import UserRepository
from pantheon.users.schemas import (
    DailyUsage,
    KeyRead,
    ModelUsage,
    UsageRead,
    UsageTotals,
    UserRead,
)


class UserService:
    def __init__(self, repo: UserRepository) -> None:
        self.repo = repo

    async def create_user(
        self,
        login: str,
        *,
        is_admin: bool = False,
        allowed_models: list[str] | None = None,
        email: str | None = None,
        display_name: str = "",
    ) -> User:
        """A new active user; 409 when the login is taken."""
        if await self.repo.by_login(login) is not None:
            raise Conflict(f"a user named '{login}' already exists")
        user = User(
            login=login,
            email=email,
            display_name=display_name or login,
            role="admin" if is_admin else "member",
            status="active",
            allowed_models=allowed_models,
            created_at=utcnow(),
        )
        self.repo.add(user)
        await self.repo.session.flush()
        return user

    async def by_name(self, login: str) -> User:
        user = await self.repo.by_login(login)
        if user is None:
            raise NotFound(f"no user named '{login}'")
        return user

    async def set_password(self, login: str, password: str) -> User:
        """Give a user a password for ``POST /auth/login`` (hashed off the event loop)."""
        check_password_length(password)
        user = await self.by_name(login)
        user.password_hash = await hash_password(password)
        await self.repo.session.flush()
        return user

    async def set_allowed_models(self, name: str, models: list[str] | None) -> User:
        """Replace a user's model allowlist (``None``: every configured alias)."""
        user = await self.by_name(name)
        user.allowed_models = models
        await self.repo.session.flush()
        return user

    async def create_key(self, user_name: str) -> tuple[str, ApiKey]:
        """A new key for the user: ``(key, row)``. The key is not recoverable afterwards."""
        user = await self.by_name(user_name)
        key, prefix = generate_key()
        row = ApiKey(
            user_id=user.id, prefix=prefix, key_hash=token_digest(key), created_at=utcnow()
        )
        self.repo.add(row)
        await self.repo.session.flush()
        return key, row

    async def keys_of(self, user_id: str) -> list[ApiKey]:
        """A user's keys, oldest first, revoked ones included; 404 for an unknown user."""
        user = await self.user(user_id)
        return (await self.repo.keys_of([user.id]))[user.id]

    async def add_key(self, user_id: str) -> tuple[str, ApiKey]:
        """A new key for the user with this id (``create_key`` by login)."""
        return await self.create_key((await self.user(user_id)).login)

    async def revoke_key_of(self, user_id: str, key_id: str) -> ApiKey:
        """Revoke one of the user's keys by its id: 404 unless the key is theirs (so a key
        id never reveals another user's key)."""
        user = await self.user(user_id)
        row = await self.repo.key(key_id)
        if row is None or row.user_id != user.id:
            raise not_found("API key", key_id)
        return await self.revoke_key(row.prefix)

    async def user(self, user_id: str | uuid.UUID) -> User:
        user = await self.repo.get(user_id)
        if user is None:
            raise not_found("user", user_id)
        return user

    async def revoke_key(self, prefix: str) -> ApiKey:
        """Revoke by prefix; revoking twice keeps the first revocation time."""
        row = await self.repo.key_by_prefix(prefix)
        if row is None:
            raise NotFound(f"no API key with prefix '{prefix}'")
        if row.revoked_at is None:
            row.revoked_at = utcnow()
            await self.repo.session.flush()
        return row

    async def read(self, users: list[User]) -> list[UserRead]:
        keys = await self.repo.keys_of([u.id for u in users])
        return [
            UserRead(
                id=u.id,
                name=u.login,
                login=u.login,
                email=u.email,
                display_name=u.display_name,
                role=u.role,
                status=u.status,
                is_admin=u.is_admin,
                allowed_models=u.allowed_models,
                created_at=u.created_at,
                keys=[KeyRead.model_validate(k) for k in keys[u.id]],
            )
            for u in users
        ]

    async def usage(self, user_id: str | uuid.UUID, days: int) -> UsageRead:
        """Tokens and cost per day and model over the last ``days`` days (UTC)."""
        user = await self.user(user_id)
        since = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
        since -= timedelta(days=days - 1)
        rows = await self.repo.usage(user.id, since)
        by_day = [
            DailyUsage(
                day=r.day if not isinstance(r.day, str) else datetime.fromisoformat(r.day).date(),
                model=r.model,
                calls=int(r.calls),
                input_tokens=int(r.input_tokens or 0),
                output_tokens=int(r.output_tokens or 0),
                cost_usd=float(r.cost_usd or 0.0),
            )
            for r in rows
        ]
        return UsageRead(
            user_id=user.id,
            since=since.date(),
            days=days,
            total=_sum(by_day),
            by_model=_by_model(by_day),
            by_day=by_day,
        )


def _sum(rows: list[DailyUsage]) -> UsageTotals:
    return UsageTotals(
        calls=sum(r.calls for r in rows),
        input_tokens=sum(r.input_tokens for r in rows),
        output_tokens=sum(r.output_tokens for r in rows),
        cost_usd=sum(r.cost_usd for r in rows),
    )


def _by_model(rows: list[DailyUsage]) -> list[ModelUsage]:
    grouped: dict[str, list[DailyUsage]] = defaultdict(list)
    for row in rows:
        grouped[row.model].append(row)
    return [
        ModelUsage(model=model, **_sum(group).model_dump())
        for model, group in sorted(grouped.items())
    ]
