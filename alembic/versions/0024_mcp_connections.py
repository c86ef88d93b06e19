"""mcp_connections: a user's sealed OAuth tokens per MCP server; mcp_connects: connects under way

Revision ID: 0024_mcp_connections
Revises: 0023_tool_pins
Create Date: 2026-12-02 03:10:00

``mcp_connections`` holds, per (user, server), the token set encrypted with a key derived
from PANTHEON_SECRET_KEY, the granted scopes, the expiry and the non-secret client
registration. ``mcp_connects`` holds, by the SHA-256 of its ``state``, the sealed PKCE
verifier of a connect between ``POST /v1/connections/{server}`` and its callback
(docs/adr/0046).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import pantheon.db.base

revision: str = "0024_mcp_connections"
down_revision: str | None = "0023_tool_pins"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "mcp_connections",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("created_at", pantheon.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.Column("server", sa.String(length=64), nullable=False),
        sa.Column("sealed_tokens", sa.Text(), nullable=False),
        sa.Column("scopes", sa.Text(), nullable=False),
        sa.Column("expires_at", pantheon.db.base.UTCDateTime(timezone=True), nullable=True),
        sa.Column("client", sa.JSON(), nullable=False),
        sa.Column("updated_at", pantheon.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_mcp_connections_user_id_users")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mcp_connections")),
        sa.UniqueConstraint("user_id", "server", name="uq_mcp_connections_server"),
    )
    op.create_index(op.f("ix_mcp_connections_user_id"), "mcp_connections", ["user_id"])
    op.create_table(
        "mcp_connects",
        sa.Column("state_hash", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.Column("server", sa.String(length=64), nullable=False),
        sa.Column("sealed_flow", sa.Text(), nullable=False),
        sa.Column("created_at", pantheon.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("expires_at", pantheon.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_mcp_connects_user_id_users")
        ),
        sa.PrimaryKeyConstraint("state_hash", name=op.f("pk_mcp_connects")),
    )
    op.create_index(op.f("ix_mcp_connects_user_id"), "mcp_connects", ["user_id"])
    op.create_index(op.f("ix_mcp_connects_expires_at"), "mcp_connects", ["expires_at"])


def downgrade() -> None:
    op.drop_index(op.f("ix_mcp_connects_expires_at"), table_name="mcp_connects")
    op.drop_index(op.f("ix_mcp_connects_user_id"), table_name="mcp_connects")
    op.drop_table("mcp_connects")
    op.drop_index(op.f("ix_mcp_connections_user_id"), table_name="mcp_connections")
    op.drop_table("mcp_connections")
