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


def upgrade() -> None:
    with op.batch_alter_table("sessions") as batch:
        batch.add_column(
            sa.Column("deleted_at", pantheon.db.base.UTCDateTime(timezone=True), nullable=True)
        )


def downgrade() -> None:
    with op.batch_alter_table("sessions") as batch:
        batch.drop_column("deleted_at")
