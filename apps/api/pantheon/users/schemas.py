"""Admin read schemas: users with their key prefixes, and usage reports."""

from __future__ import annotations

import uuid
from datetime import date, datetime

from pydantic import BaseModel

from pantheon.db.models import UserRole, UserStatus
from pantheon.schemas import ReadSchema


class KeyRead(ReadSchema):
    prefix: str
    created_at: datetime
    revoked_at: datetime | None


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
