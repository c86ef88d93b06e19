"""Eval API request and read schemas: datasets, runs, results (field names are public)."""

from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import BaseModel, Field, model_validator

from pantheon.engine.values import Mode
from pantheon.evals.cases import Case
from pantheon.evals.datasets import MAX_CASES
from pantheon.evals.values import CheckType, EvalStatus
from pantheon.schemas import ReadSchema, RequestBody

MAX_TARGETS = 12
MAX_CONCURRENCY = 8
DEFAULT_DEADLINE_S = 3600


class DatasetCreate(RequestBody):
    """``cases`` as JSON, or ``jsonl``: the text of a JSONL file (one case a line)."""

    name: str = Field(min_length=1, max_length=200)
    cases: list[Case] | None = Field(default=None, min_length=1, max_length=MAX_CASES)
    jsonl: str | None = Field(default=None, min_length=1)

    @model_validator(mode="after")
    def _one_source(self) -> DatasetCreate:
        if (self.cases is None) == (self.jsonl is None):
            raise ValueError("give exactly one of 'cases' and 'jsonl'")
        return self


class DatasetRead(ReadSchema):
    id: uuid.UUID
    name: str
    cases: list[Case]
    created_at: datetime


class DatasetSummary(ReadSchema):
    id: uuid.UUID
    name: str
    case_count: int
    created_at: datetime


class TargetCreate(RequestBody):
    """A room in a mode (default: the room's), or one agent alone. A mode that runs on
    one agent (``standalone``) in a room uses ``agent_key`` (default: the first seat)."""

    room_id: uuid.UUID | None = None
    agent_id: uuid.UUID | None = None
    mode: Mode | None = None
    agent_key: str | None = Field(default=None, min_length=1, max_length=64)

    @model_validator(mode="after")
    def _one_place(self) -> TargetCreate:
        if (self.room_id is None) == (self.agent_id is None):
            raise ValueError("give exactly one of 'room_id' and 'agent_id'")
        return self


class TargetRead(BaseModel):
    index: int
    label: str
    room_id: uuid.UUID | None
    agent_id: uuid.UUID | None = Field(description="set when the mode runs on one agent")
    mode: Mode


class EvalCreate(RequestBody):
    dataset_id: uuid.UUID
    targets: list[TargetCreate] = Field(min_length=1, max_length=MAX_TARGETS)
    name: str = Field(default="", max_length=200)
    concurrency: int = Field(default=2, ge=1, le=MAX_CONCURRENCY)
    deadline_s: int = Field(default=DEFAULT_DEADLINE_S, ge=1, le=86_400)
    seed: int = Field(default=0, ge=0, le=2**31 - 1, description="For the report's bootstrap")


class EvalRead(BaseModel):
    id: uuid.UUID
    name: str
    dataset_id: uuid.UUID
    status: EvalStatus
    targets: list[TargetRead]
    total: int = Field(description="cases x targets")
    done: int = Field(description="case runs finished so far")
    passed: int
    cost_usd: float
    concurrency: int
    deadline_s: int
    seed: int
    error: str | None
    created_at: datetime
    finished_at: datetime | None


class CheckOutcome(BaseModel):
    type: CheckType
    passed: bool
    detail: str


class ResultRead(ReadSchema):
    case_index: int
    case_id: str
    target_index: int
    session_id: uuid.UUID | None
    turn_id: uuid.UUID | None
    turn_status: str | None
    passed: bool | None = Field(description="null while the case runs")
    checks: list[CheckOutcome]
    judge_score: float | None
    judge_cost_usd: float
    cost_usd: float
    input_tokens: int
    output_tokens: int
    latency_ms: int
    calls: int
    answer: str
    error: str | None
    started_at: datetime
    finished_at: datetime | None


class TargetReport(BaseModel):
    index: int
    label: str
    cases: int = Field(description="finished cases")
    passed: int
    pass_rate: float | None
    ci_low: float | None = Field(description="bootstrap 95% interval of the pass rate")
    ci_high: float | None
    mean_judge_score: float | None
    cost_per_case_usd: float | None
    latency_per_case_ms: float | None
    tokens_per_case: float | None
    calls_per_case: float | None


class Flip(BaseModel):
    case_id: str
    target: str
    before: bool
    after: bool


class ReportRead(BaseModel):
    run_id: uuid.UUID
    status: EvalStatus
    targets: list[TargetReport]
    compared_with: uuid.UUID | None = None
    flips: list[Flip] = Field(default_factory=list)
