"""Turn request and read schemas (field names are part of the public contract)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field, field_validator

from pantheon.schemas import ReadSchema, RequestBody
from pantheon.sessions.schemas import MessageRead

TurnMode = Literal["standalone", "manual", "roundtable", "orchestrator"]


class TurnCreate(RequestBody):
    message: str = Field(min_length=1, description="The user's message")
    mode: TurnMode | None = Field(default=None, description="Override the room's mode")

    @field_validator("message")
    @classmethod
    def _has_text(cls, message: str) -> str:
        if not message.strip():
            raise ValueError("message has no text (only whitespace)")
        return message


class TurnUsageRead(BaseModel):
    input_tokens: int
    output_tokens: int
    cost_usd: float


class TurnRead(ReadSchema):
    id: uuid.UUID
    session_id: uuid.UUID
    mode: TurnMode
    status: Literal["completed", "partial", "failed", "cancelled"]
    message: str
    output: str
    rounds: int
    usage: TurnUsageRead
    error_code: str | None
    created_at: datetime
    finished_at: datetime | None


class LLMCallRead(ReadSchema):
    id: uuid.UUID
    seq: int
    purpose: Literal["route", "specialist", "evaluate", "synthesis", "chat"]
    model: str
    agent_key: str | None
    round: int | None
    input_tokens: int
    output_tokens: int
    usage_estimated: bool
    cost_usd: float
    latency_ms: float
    ttft_ms: float | None
    status: str
    error_code: str | None
    started_at: datetime


class TurnDetail(TurnRead):
    messages: list[MessageRead]
    llm_calls: list[LLMCallRead]
