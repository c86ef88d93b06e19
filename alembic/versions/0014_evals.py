"""evals: datasets, runs and per-case results

Revision ID: 0014_evals
Revises: 0013_session_forks

A dataset is a list of cases (JSON, validated by the API); a run holds its grid of targets
and status; a result is one case on one target: its session and turn, the checks'
outcomes and the turn's cost, tokens, latency and calls (docs/evals.md, docs/adr/0019).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import pantheon.db.base

revision: str = "0014_evals"
down_revision: str | None = "0013_session_forks"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

UTC = pantheon.db.base.UTCDateTime


def _datasets() -> None:
    op.create_table(
        "eval_datasets",
        sa.Column("owner_id", sa.Uuid(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("cases", sa.JSON(), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("created_at", UTC(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["owner_id"], ["users.id"], name=op.f("fk_eval_datasets_owner_id_users")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_eval_datasets")),
    )
    op.create_index(op.f("ix_eval_datasets_owner_id"), "eval_datasets", ["owner_id"])


def _runs() -> None:
    op.create_table(
        "eval_runs",
        sa.Column("owner_id", sa.Uuid(), nullable=False),
        sa.Column("dataset_id", sa.Uuid(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("targets", sa.JSON(), nullable=False),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("concurrency", sa.Integer(), nullable=False),
        sa.Column("deadline_s", sa.Integer(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("finished_at", UTC(timezone=True), nullable=True),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("created_at", UTC(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["dataset_id"], ["eval_datasets.id"], name=op.f("fk_eval_runs_dataset_id_eval_datasets")
        ),
        sa.ForeignKeyConstraint(
            ["owner_id"], ["users.id"], name=op.f("fk_eval_runs_owner_id_users")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_eval_runs")),
    )
    op.create_index(op.f("ix_eval_runs_owner_id"), "eval_runs", ["owner_id"])


def _results() -> None:
    op.create_table(
        "eval_results",
        sa.Column("run_id", sa.Uuid(), nullable=False),
        sa.Column("case_index", sa.Integer(), nullable=False),
        sa.Column("case_id", sa.String(length=200), nullable=False),
        sa.Column("target_index", sa.Integer(), nullable=False),
        sa.Column("session_id", sa.Uuid(), nullable=True),
        sa.Column("turn_id", sa.Uuid(), nullable=True),
        sa.Column("turn_status", sa.String(length=20), nullable=True),
        sa.Column("passed", sa.Boolean(), nullable=True),
        sa.Column("checks", sa.JSON(), nullable=False),
        sa.Column("judge_score", sa.Double(), nullable=True),
        sa.Column("judge_cost_usd", sa.Double(), nullable=False),
        sa.Column("cost_usd", sa.Double(), nullable=False),
        sa.Column("input_tokens", sa.Integer(), nullable=False),
        sa.Column("output_tokens", sa.Integer(), nullable=False),
        sa.Column("latency_ms", sa.Integer(), nullable=False),
        sa.Column("calls", sa.Integer(), nullable=False),
        sa.Column("answer", sa.Text(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("started_at", UTC(timezone=True), nullable=False),
        sa.Column("finished_at", UTC(timezone=True), nullable=True),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.ForeignKeyConstraint(
            ["run_id"], ["eval_runs.id"], name=op.f("fk_eval_results_run_id_eval_runs")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_eval_results")),
        sa.UniqueConstraint(
            "run_id", "case_index", "target_index", name=op.f("uq_eval_results_run_id")
        ),
    )
    op.create_index(op.f("ix_eval_results_run_id"), "eval_results", ["run_id"])


def upgrade() -> None:
    _datasets()
    _runs()
    _results()


def downgrade() -> None:
    op.drop_index(op.f("ix_eval_results_run_id"), table_name="eval_results")
    op.drop_table("eval_results")
    op.drop_index(op.f("ix_eval_runs_owner_id"), table_name="eval_runs")
    op.drop_table("eval_runs")
    op.drop_index(op.f("ix_eval_datasets_owner_id"), table_name="eval_datasets")
    op.drop_table("eval_datasets")
