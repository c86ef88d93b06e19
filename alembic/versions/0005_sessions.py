"""sessions: soft delete

Revision ID: 0005_sessions
Revises: 0004_knowledge
Create Date: 2026-11-23 07:40:00

Sessions get ``deleted_at`` like rooms and agents: DELETE /v1/sessions/{id} hides a session
and its turns without destroying the record.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import pantheon.db.base

revision: str = "0005_sessions"
down_revision: str | None = "0004_knowledge"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


# Plain ALTER TABLE, not batch mode: SQLite (3.35+) adds and drops a plain column in place,
# whereas batch mode recreates the table, which its foreign keys refuse once rows exist.


def upgrade() -> None:
    op.add_column(
        "sessions",
        sa.Column("deleted_at", pantheon.db.base.UTCDateTime(timezone=True), nullable=True),
    )


def downgrade() -> None:
    op.drop_column("sessions", "deleted_at")
