"""mcp_tool_pins: MCP servers' tool definitions, pinned when first seen (docs/adr/0045)

Revision ID: 0023_tool_pins
Revises: 0022_room_members
Create Date: 2026-12-02 03:00:00

One row per (server, tool). A row with ``pending_definition`` is quarantined: the tool is
not offered to models until an admin accepts it.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import pantheon.db.base

revision: str = "0023_tool_pins"
down_revision: str | None = "0022_room_members"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    when = pantheon.db.base.UTCDateTime(timezone=True)
    op.create_table(
        "mcp_tool_pins",
        sa.Column("server", sa.String(length=32), nullable=False),
        sa.Column("tool", sa.String(length=128), nullable=False),
        sa.Column("definition", sa.Text(), nullable=True),
        sa.Column("definition_hash", sa.String(length=64), nullable=True),
        sa.Column("content_hash", sa.String(length=64), nullable=True),
        sa.Column("pending_definition", sa.Text(), nullable=True),
        sa.Column("pending_hash", sa.String(length=64), nullable=True),
        sa.Column("previous_definition", sa.Text(), nullable=True),
        sa.Column("change", sa.String(length=16), nullable=True),
        sa.Column("renamed_from", sa.String(length=128), nullable=True),
        sa.Column("first_seen_at", when, nullable=False),
        sa.Column("changed_at", when, nullable=True),
        sa.Column("accepted_at", when, nullable=True),
        sa.Column("accepted_by", sa.Uuid(), nullable=True),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.ForeignKeyConstraint(
            ["accepted_by"], ["users.id"], name=op.f("fk_mcp_tool_pins_accepted_by_users")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mcp_tool_pins")),
        sa.UniqueConstraint("server", "tool", name=op.f("uq_mcp_tool_pins_server")),
    )


def downgrade() -> None:
    op.drop_table("mcp_tool_pins")
