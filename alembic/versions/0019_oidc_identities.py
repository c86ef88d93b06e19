"""oidc_identities: a provider's subject signs in as a user; oidc_logins: sign-ins under way

Revision ID: 0019_oidc_identities
Revises: 0018_people
Create Date: 2026-12-02 02:30:00

``oidc_identities`` links (provider, subject) to a user (unique), so a later sign-in finds
the user by the provider's stable subject, not by an email that may change.
``oidc_logins`` holds, by the SHA-256 of its ``state``, the nonce and PKCE verifier of a
sign-in between ``/auth/oidc/NAME/login`` and its callback (docs/adr/0041).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import pantheon.db.base

revision: str = "0019_oidc_identities"
down_revision: str | None = "0018_people"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "oidc_identities",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("created_at", pantheon.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("provider", sa.String(length=64), nullable=False),
        sa.Column("subject", sa.String(length=255), nullable=False),
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=True),
        sa.Column("last_signin_at", pantheon.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_oidc_identities_user_id_users")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_oidc_identities")),
        sa.UniqueConstraint("provider", "subject", name="uq_oidc_identities_subject"),
    )
    op.create_index(op.f("ix_oidc_identities_user_id"), "oidc_identities", ["user_id"])
    op.create_table(
        "oidc_logins",
        sa.Column("state_hash", sa.String(length=64), nullable=False),
        sa.Column("provider", sa.String(length=64), nullable=False),
        sa.Column("nonce", sa.String(length=64), nullable=False),
        sa.Column("code_verifier", sa.String(length=128), nullable=False),
        sa.Column("created_at", pantheon.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("expires_at", pantheon.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("state_hash", name=op.f("pk_oidc_logins")),
    )
    op.create_index(op.f("ix_oidc_logins_expires_at"), "oidc_logins", ["expires_at"])


def downgrade() -> None:
    op.drop_index(op.f("ix_oidc_logins_expires_at"), table_name="oidc_logins")
    op.drop_table("oidc_logins")
    op.drop_index(op.f("ix_oidc_identities_user_id"), table_name="oidc_identities")
    op.drop_table("oidc_identities")
