"""budgets and spend ledger; llm_calls by start time

Revision ID: 0008_budgets
Revises: 0007_session_summary
Create Date: 2026-11-23 10:49:19

Budgets (per user, optionally per room), one spend counter per budget and UTC day/month,
and the holds of calls in flight (docs/budgets.md, docs/adr/0013). The index on
``llm_calls.started_at`` serves the usage sums that open a counter and the admin report.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import pantheon.db.base

revision: str = "0008_budgets"
down_revision: str | None = "0007_session_summary"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "budgets",
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.Column("room_id", sa.Uuid(), nullable=True),
        sa.Column("scope", sa.String(length=80), nullable=False),
        sa.Column("daily_usd", sa.Double(), nullable=True),
        sa.Column("monthly_usd", sa.Double(), nullable=True),
        sa.Column("updated_at", pantheon.db.base.UTCDateTime(timezone=True), nullable=True),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("created_at", pantheon.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["room_id"], ["rooms.id"], name=op.f("fk_budgets_room_id_rooms")),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name=op.f("fk_budgets_user_id_users")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_budgets")),
        sa.UniqueConstraint("user_id", "scope", name=op.f("uq_budgets_user_id")),
    )
    op.create_index(op.f("ix_budgets_user_id"), "budgets", ["user_id"], unique=False)

    op.create_table(
        "spend_counters",
        sa.Column("budget_id", sa.Uuid(), nullable=False),
        sa.Column("period", sa.String(length=10), nullable=False),
        sa.Column("window_start", pantheon.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("spent_micros", sa.BigInteger(), nullable=False),
        sa.Column("reserved_micros", sa.BigInteger(), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.ForeignKeyConstraint(
            ["budget_id"], ["budgets.id"], name=op.f("fk_spend_counters_budget_id_budgets")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_spend_counters")),
        sa.UniqueConstraint(
            "budget_id", "period", "window_start", name=op.f("uq_spend_counters_budget_id")
        ),
    )
    op.create_table(
        "spend_holds",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("counter_id", sa.Uuid(), nullable=False),
        sa.Column("amount_micros", sa.BigInteger(), nullable=False),
        sa.Column("expires_at", pantheon.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["counter_id"],
            ["spend_counters.id"],
            name=op.f("fk_spend_holds_counter_id_spend_counters"),
        ),
        sa.PrimaryKeyConstraint("id", "counter_id", name=op.f("pk_spend_holds")),
    )
    op.create_index(op.f("ix_spend_holds_expires_at"), "spend_holds", ["expires_at"], unique=False)

    op.create_index("ix_llm_calls_started_at", "llm_calls", ["started_at"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_llm_calls_started_at", table_name="llm_calls")

    op.drop_index(op.f("ix_spend_holds_expires_at"), table_name="spend_holds")

    op.drop_table("spend_holds")
    op.drop_table("spend_counters")
    op.drop_index(op.f("ix_budgets_user_id"), table_name="budgets")

    op.drop_table("budgets")
