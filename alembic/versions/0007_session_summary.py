"""session summary: the rolling summary of a session's older history

Revision ID: 0007_session_summary
Revises: 0006_pgvector
Create Date: 2026-11-23 11:00:00

``sessions`` gets the summary the manager folds older history into (docs/context.md) and
what it covers (up to which turn and message time, how many messages, when it was
written); ``turns.context_dropped`` counts history messages a turn left out of its
prompts unsummarised (a failed summary call). Existing rows: no summary, nothing dropped.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import pantheon.db.base

revision: str = "0007_session_summary"
down_revision: str | None = "0006_pgvector"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_SESSION_COLUMNS = (
    "summary",
    "summary_through_turn_id",
    "summary_through_at",
    "summary_messages",
    "summary_updated_at",
)

# Plain ALTER TABLE, as in 0005: SQLite adds and drops plain columns in place.


def upgrade() -> None:
    when = pantheon.db.base.UTCDateTime(timezone=True)
    op.add_column("sessions", sa.Column("summary", sa.Text(), nullable=True))
    op.add_column("sessions", sa.Column("summary_through_turn_id", sa.Uuid(), nullable=True))
    op.add_column("sessions", sa.Column("summary_through_at", when, nullable=True))
    op.add_column(
        "sessions",
        sa.Column("summary_messages", sa.Integer(), server_default="0", nullable=False),
    )
    op.add_column("sessions", sa.Column("summary_updated_at", when, nullable=True))
    op.add_column(
        "turns", sa.Column("context_dropped", sa.Integer(), server_default="0", nullable=False)
    )


def downgrade() -> None:
    op.drop_column("turns", "context_dropped")
    for name in reversed(_SESSION_COLUMNS):
        op.drop_column("sessions", name)
