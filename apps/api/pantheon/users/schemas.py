"""Admin schemas: users with their key prefixes, invitations and changes, usage reports."""

from __future__ import annotations

import uuid
from datetime import date, datetime
from typing import Annotated

from pydantic import BaseModel, Field

from pantheon.db.models import UserRole, UserStatus
from pantheon.schemas import ReadSchema, RequestBody

Login = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^\S+$")]
Email = Annotated[str, Field(min_length=3, max_length=320, pattern=r"^[^@\s]+@[^@\s]+$")]
DisplayName = Annotated[str, Field(max_length=200)]


class KeyRead(ReadSchema):
    id: uuid.UUID
    prefix: str = Field(description="The key's first 11 characters, stored in clear")
    created_at: datetime
    revoked_at: datetime | None


class KeyCreated(KeyRead):
    key: str = Field(description="The whole key: shown this once; only its hash is kept")


class UserRead(ReadSchema):
    id: uuid.UUID
    name: str  # the login, under its name before accounts (kept for existing clients)
    login: str
    email: str | None
    display_name: str
    role: UserRole
    status: UserStatus
    is_admin: bool
    allowed_models: list[str] | None
    created_at: datetime
    keys: list[KeyRead]


class UserCreate(RequestBody):
    """An invitation: a new active user with no password until they accept the link."""

    login: Login
    email: Email | None = None
    display_name: DisplayName = Field(default="", description="default: the login")
    role: UserRole = "member"


class UserUpdate(RequestBody):
    """Fields to change; ``status`` ``active`` approves a pending user or re-enables one."""

    status: UserStatus | None = Field(default=None, description="active | disabled")
    role: UserRole | None = None
    display_name: DisplayName | None = None


class InviteRead(BaseModel):
    user: UserRead
    invite_url: str = Field(description="/invite/<token>: shown once; only its hash is kept")


class UsageTotals(BaseModel):
    calls: int
    input_tokens: int
    output_tokens: int
    cost_usd: float


class ModelUsage(UsageTotals):
    model: str


class DailyUsage(ModelUsage):
    day: date


class UsageRead(BaseModel):
    user_id: uuid.UUID
    since: date
    days: int
    total: UsageTotals
    by_model: list[ModelUsage]
    by_day: list[DailyUsage]
