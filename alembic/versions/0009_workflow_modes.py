"""workflow modes: messages.reused marks pipeline stages taken over by rerun_from

The new modes (pipeline, review) and LLM call purposes need no schema change: mode and
purpose columns are plain strings. Existing messages were all produced by their turn.

Revision ID: 0009_workflow_modes
Revises: 0008_budgets
Create Date: 2026-11-23 11:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009_workflow_modes"
down_revision: str | None = "0008_budgets"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("messages", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("reused", sa.Boolean(), server_default=sa.false(), nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("messages", schema=None) as batch_op:
        batch_op.drop_column("reused")
