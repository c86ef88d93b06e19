"""The evaluation tables (docs/evals.md): datasets, runs and their per-case results.

Apart from ``models.py`` only for size; both register on the same metadata, and
``alembic/env.py`` imports both."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import JSON, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from pantheon.db.base import Base, Timestamped, UUIDPrimaryKey


class EvalDataset(UUIDPrimaryKey, Timestamped, Base):
    """A named list of eval cases (docs/evals.md), validated before it is stored."""

    __tablename__ = "eval_datasets"
    owner_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id"), index=True)
    name: Mapped[str] = mapped_column(String(200))
    cases: Mapped[list[dict[str, object]]] = mapped_column(JSON)


class EvalRun(UUIDPrimaryKey, Timestamped, Base):
    """A dataset run over a grid of targets, in the background of the process that made it."""

    __tablename__ = "eval_runs"
    owner_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id"), index=True)
    dataset_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("eval_datasets.id"))
    name: Mapped[str] = mapped_column(String(200))
    status: Mapped[str] = mapped_column(String(20))
    targets: Mapped[list[dict[str, object]]] = mapped_column(JSON)
    total: Mapped[int] = mapped_column(Integer)
    concurrency: Mapped[int] = mapped_column(Integer)
    deadline_s: Mapped[int] = mapped_column(Integer)
    seed: Mapped[int] = mapped_column(Integer)
    error: Mapped[str | None] = mapped_column(Text, default=None)
    finished_at: Mapped[datetime | None] = mapped_column(default=None)
    # The running process's last "alive" mark (NULL: made before 0016; created_at counts).
    heartbeat_at: Mapped[datetime | None] = mapped_column(default=None)


class EvalResult(UUIDPrimaryKey, Base):
    """One case on one target: its turn, the checks' outcomes and the turn's figures."""

    __tablename__ = "eval_results"
    __table_args__ = (UniqueConstraint("run_id", "case_index", "target_index"),)
    run_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("eval_runs.id"), index=True)
    case_index: Mapped[int] = mapped_column(Integer)
    case_id: Mapped[str] = mapped_column(String(200))
    target_index: Mapped[int] = mapped_column(Integer)
    session_id: Mapped[uuid.UUID | None] = mapped_column(default=None)
    turn_id: Mapped[uuid.UUID | None] = mapped_column(default=None)
    turn_status: Mapped[str | None] = mapped_column(String(20), default=None)
    passed: Mapped[bool | None] = mapped_column(default=None)
    checks: Mapped[list[dict[str, object]]] = mapped_column(JSON, default=list)
    judge_score: Mapped[float | None] = mapped_column(default=None)
    judge_cost_usd: Mapped[float] = mapped_column(default=0.0)
    cost_usd: Mapped[float] = mapped_column(default=0.0)
    input_tokens: Mapped[int] = mapped_column(Integer, default=0)
    output_tokens: Mapped[int] = mapped_column(Integer, default=0)
    latency_ms: Mapped[int] = mapped_column(Integer, default=0)
    calls: Mapped[int] = mapped_column(Integer, default=0)
    answer: Mapped[str] = mapped_column(Text, default="")
    error: Mapped[str | None] = mapped_column(Text, default=None)
    started_at: Mapped[datetime]
    finished_at: Mapped[datetime | None] = mapped_column(default=None)
