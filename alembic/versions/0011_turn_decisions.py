"""turn decisions: a paused turn's decision is claimed before its continuation runs

Revision ID: 0011_turn_decisions
Revises: 0010_approvals
Create Date: 2026-11-24 18:00:00

``turn_decisions`` holds one row per decided paused turn (its primary key), written and
committed before the continuation runs any tool, so two racing decisions cannot both run
the approved calls (docs/approvals.md). Continuations already recorded are copied in: the
paused turn they continue is decided, and their user message is what was decided.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from pantheon.db.base import UTCDateTime

revision: str = "0011_turn_decisions"
down_revision: str | None = "0010_approvals"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "turn_decisions",
        sa.Column("turn_id", sa.Uuid(), nullable=False),
        sa.Column("continuation_id", sa.Uuid(), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("decided_at", UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["turn_id"], ["turns.id"], name=op.f("fk_turn_decisions_turn_id_turns")
        ),
        sa.PrimaryKeyConstraint("turn_id", name=op.f("pk_turn_decisions")),
        sa.UniqueConstraint("continuation_id", name=op.f("uq_turn_decisions_continuation_id")),
    )
    op.execute(
        "INSERT INTO turn_decisions (turn_id, continuation_id, note, decided_at) "
        "SELECT continues_id, id, message, created_at FROM turns WHERE continues_id IS NOT NULL"
    )


def downgrade() -> None:
    op.drop_table("turn_decisions")
