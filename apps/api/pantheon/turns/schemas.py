"""Turn request and read schemas (field names are part of the public contract)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, field_validator

from pantheon.engine.values import ApprovalStatus, Mode, Purpose, TurnStatus
from pantheon.schemas import ReadSchema, RequestBody
from pantheon.sessions.schemas import MessageRead

TurnMode = Mode


class TurnCreate(RequestBody):
    message: str = Field(min_length=1, description="The user's message")
    mode: TurnMode | None = Field(default=None, description="Override the room's mode")
    rerun_from: str | None = Field(
        default=None,
        min_length=1,
        max_length=64,
        description=(
            "Pipeline only: the agent key of the stage to run from; the stages before it "
            "reuse the outputs of the session's last pipeline turn (not billed again)"
        ),
    )

    agent: str | None = Field(
        default=None,
        min_length=1,
        max_length=64,
        description=(
            "Room sessions only: run just this roster agent (its key) on the message, e.g. "
            "to retry one that failed; the turn runs in `mode`, else in the first room mode "
            "where each agent answers for itself (roundtable)"
        ),
    )

    @field_validator("message")
    @classmethod
    def _has_text(cls, message: str) -> str:
        if not message.strip():
            raise ValueError("message has no text (only whitespace)")
        return message


class ApprovalDecision(RequestBody):
    call_id: str = Field(min_length=1, max_length=200, description="A pending call's id")
    approve: bool
    reason: str = Field(
        default="", max_length=2000, description="Told to the model when the call is rejected"
    )


class ApprovalCreate(RequestBody):
    """One decision per pending call of a turn awaiting approval."""

    decisions: list[ApprovalDecision] = Field(min_length=1, max_length=64)


class AgentChange(RequestBody):
    """What a replay changes about one agent of the recorded roster."""

    model_config = ConfigDict(allow_inf_nan=False, extra="forbid")

    model: str | None = Field(default=None, min_length=1, max_length=100, description="Alias")
    role_prompt: str | None = Field(default=None, min_length=1, max_length=20_000)


class ReplayCreate(RequestBody):
    """A replay of a finished turn; empty: exactly as recorded (docs/replay.md)."""

    model_config = ConfigDict(allow_inf_nan=False, extra="forbid")

    agents: dict[str, AgentChange] = Field(
        default_factory=dict, max_length=64, description="Changes by agent key"
    )
    description: str | None = Field(default=None, max_length=5_000, description="Room purpose")
    mode: TurnMode | None = Field(default=None, description="Run the turn in another mode")


class RetryCreate(RequestBody):
    """Which failed agents of an orchestrator turn run again before a new synthesis
    (README "Retry", ADR 0034)."""

    model_config = ConfigDict(allow_inf_nan=False, extra="forbid")

    agents: list[Annotated[str, Field(min_length=1, max_length=64)]] | None = Field(
        default=None,
        max_length=64,
        description=(
            "Agent keys that failed in the turn; omitted: every one that failed; "
            "[]: the synthesis alone"
        ),
    )


class TurnUsageRead(BaseModel):
    input_tokens: int
    output_tokens: int
    cost_usd: float


class TurnRead(ReadSchema):
    id: uuid.UUID
    session_id: uuid.UUID
    mode: TurnMode
    status: TurnStatus
    message: str
    output: str
    rounds: int
    usage: TurnUsageRead
    error_code: str | None
    context_dropped: int = Field(
        default=0,
        description="History messages left out of the prompts unsummarised (docs/context.md)",
    )
    created_at: datetime
    finished_at: datetime | None
    continues: uuid.UUID | None = Field(
        default=None, description="The turn awaiting approval that this turn continues"
    )


class LLMCallRead(ReadSchema):
    id: uuid.UUID
    seq: int
    purpose: Purpose
    model: str
    agent_key: str | None
    round: int | None
    input_tokens: int
    output_tokens: int
    usage_estimated: bool
    cost_usd: float
    latency_ms: int
    ttft_ms: int | None
    status: str
    error_code: str | None
    started_at: datetime
    replayed: bool = Field(
        default=False, description="Served from the recorded turn (a replay): nothing paid"
    )


class ToolCallRead(ReadSchema):
    """One tool call: ``arguments`` is the JSON text the model wrote, ``result`` what the
    model read back; ``message_id`` is the calling agent's message."""

    id: uuid.UUID
    seq: int
    message_id: uuid.UUID
    agent_key: str
    round: int
    call_id: str
    name: str
    arguments: str
    result: str
    ok: bool
    duration_ms: int
    approval: ApprovalStatus | None = Field(
        default=None, description="pending | approved | rejected; null: needs no approval"
    )


class TurnDetail(TurnRead):
    messages: list[MessageRead]
    llm_calls: list[LLMCallRead]
    tool_calls: list[ToolCallRead]
