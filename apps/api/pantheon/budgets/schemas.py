"""Budget request and read schemas (admin routes and the CLI's output)."""

from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import BaseModel, Field, model_validator

from pantheon.engine.values import BudgetPeriod
from pantheon.schemas import RequestBody

MAX_LIMIT_USD = 1_000_000.0  # far above any sane limit, far below the ledger's integers


class BudgetSet(RequestBody):
    """Set (create or replace) a user's limits, for all their turns or one room's."""

    room_id: uuid.UUID | None = Field(default=None, description="Only turns in this room")
    daily_usd: float | None = Field(default=None, ge=0, le=MAX_LIMIT_USD)
    monthly_usd: float | None = Field(default=None, ge=0, le=MAX_LIMIT_USD)

    @model_validator(mode="after")
    def _some_limit(self) -> BudgetSet:
        if self.daily_usd is None and self.monthly_usd is None:
            raise ValueError("set daily_usd or monthly_usd (or DELETE the budget to lift it)")
        return self


class PeriodSpend(BaseModel):
    """One limit of a budget and where its current window stands."""

    period: BudgetPeriod
    limit_usd: float
    spent_usd: float
    reserved_usd: float = Field(description="Held for LLM calls in flight")
    resets_at: datetime


class BudgetRead(BaseModel):
    id: uuid.UUID
    user_id: uuid.UUID
    room_id: uuid.UUID | None
    daily_usd: float | None
    monthly_usd: float | None
    created_at: datetime
    updated_at: datetime | None
    spend: list[PeriodSpend]
