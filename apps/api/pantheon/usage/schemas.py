"""Usage report schemas: what a session's or a room's LLM calls cost, and how long."""

from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import BaseModel, Field


class UsageFigures(BaseModel):
    calls: int
    input_tokens: int
    output_tokens: int
    cost_usd: float
    latency_ms_avg: float = Field(description="Mean time of a call, start to last chunk")
    latency_ms_max: int
    ttft_ms_avg: float | None = Field(description="Mean time to the first text chunk")


class AgentUsage(UsageFigures):
    agent_key: str = Field(description="'manager' for route, evaluate and synthesis calls")


class ModelUsage(UsageFigures):
    model: str


class TurnUsage(UsageFigures):
    turn_id: uuid.UUID
    session_id: uuid.UUID
    status: str
    message: str = Field(description="The start of the user's message (120 characters)")
    created_at: datetime


class UsageReport(BaseModel):
    """Where a session's (or a room's) money and time went; ``by_turn`` newest first, at
    most ``turn_limit`` of ``turns`` turns; ``costliest_turn`` over all of them."""

    total: UsageFigures
    by_agent: list[AgentUsage]
    by_model: list[ModelUsage]
    by_turn: list[TurnUsage]
    turns: int
    turn_limit: int
    costliest_turn: TurnUsage | None
