"""invites: one-time links an admin hands to a new person to set their first password

Revision ID: 0021_invites
Revises: 0020_session_shares
Create Date: 2026-12-02 02:30:00

``invites`` holds an open invitation by the SHA-256 of its token (the token itself is only
in the link), with the invited user, the admin who invited and an expiry.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import pantheon.db.base

revision: str = "0021_invites"
down_revision: str | None = "0020_session_shares"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "invites",
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.Column("invited_by", sa.Uuid(), nullable=True),
        sa.Column("created_at", pantheon.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("expires_at", pantheon.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["invited_by"], ["users.id"], name=op.f("fk_invites_invited_by_users")
        ),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name=op.f("fk_invites_user_id_users")),
        sa.PrimaryKeyConstraint("token_hash", name=op.f("pk_invites")),
    )
    op.create_index(op.f("ix_invites_user_id"), "invites", ["user_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_invites_user_id"), table_name="invites")
    op.drop_table("invites")
