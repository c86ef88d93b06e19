"""approvals: a turn continues a paused one, keeps its resume state; gated tool calls

Revision ID: 0010_approvals
Revises: 0009_workflow_modes
Create Date: 2026-11-23 11:00:00

``turns.continues_id`` names the paused turn a continuation finishes (a unique index:
one continuation per paused turn); ``turns.resume_state`` is what the paused turn keeps
for it (docs/adr/0015); ``tool_calls.approval`` says pending / approved / rejected.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010_approvals"
down_revision: str | None = "0009_workflow_modes"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


# Plain ALTER TABLE, not batch mode (as in 0005): batch mode recreates the table, which
# SQLite's foreign keys refuse once rows exist. Hence an index, not a constraint.
def upgrade() -> None:
    op.add_column("turns", sa.Column("continues_id", sa.Uuid(), nullable=True))
    op.add_column("turns", sa.Column("resume_state", sa.Text(), nullable=True))
    op.create_index("ix_turns_continues_id", "turns", ["continues_id"], unique=True)
    op.add_column("tool_calls", sa.Column("approval", sa.String(length=20), nullable=True))


def downgrade() -> None:
    op.drop_column("tool_calls", "approval")
    op.drop_index("ix_turns_continues_id", table_name="turns")
    op.drop_column("turns", "resume_state")
    op.drop_column("turns", "continues_id")
