"""session shares: a session's read-only share link, stored by the SHA-256 of its token

Revision ID: 0020_session_shares
Revises: 0019_oidc_identities
Create Date: 2026-12-02 02:30:00

One live link per session (``session_id`` is unique): a new link replaces the row, revoking
deletes it. ``through_at``/``through_turn_id`` bound the snapshot (docs/adr/0042).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import pantheon.db.base

revision: str = "0020_session_shares"
down_revision: str | None = "0019_oidc_identities"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "session_shares",
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("session_id", sa.Uuid(), nullable=False),
        sa.Column("owner_id", sa.Uuid(), nullable=False),
        sa.Column("title", sa.String(length=200), nullable=False),
        sa.Column("through_at", pantheon.db.base.UTCDateTime(timezone=True), nullable=True),
        sa.Column("through_turn_id", sa.Uuid(), nullable=True),
        sa.Column("created_at", pantheon.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["owner_id"], ["users.id"], name=op.f("fk_session_shares_owner_id_users")
        ),
        sa.ForeignKeyConstraint(
            ["session_id"], ["sessions.id"], name=op.f("fk_session_shares_session_id_sessions")
        ),
        sa.PrimaryKeyConstraint("token_hash", name=op.f("pk_session_shares")),
        sa.UniqueConstraint("session_id", name=op.f("uq_session_shares_session_id")),
    )
    op.create_index(op.f("ix_session_shares_owner_id"), "session_shares", ["owner_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_session_shares_owner_id"), table_name="session_shares")
    op.drop_table("session_shares")
