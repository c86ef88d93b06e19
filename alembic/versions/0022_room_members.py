"""room_members: the people a room's owner shared it with (viewer or editor)

Revision ID: 0022_room_members
Revises: 0021_invites
Create Date: 2026-12-02 02:30:00

One row per (room, person); the owner stays ``rooms.owner_id`` and is never a row. The
index on ``user_id`` serves "the rooms shared with me", which every door asks.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import pantheon.db.base

revision: str = "0022_room_members"
down_revision: str | None = "0021_invites"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "room_members",
        sa.Column("room_id", sa.Uuid(), nullable=False),
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("added_at", pantheon.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("added_by", sa.Uuid(), nullable=False),
        sa.ForeignKeyConstraint(
            ["room_id"], ["rooms.id"], name=op.f("fk_room_members_room_id_rooms")
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_room_members_user_id_users")
        ),
        sa.ForeignKeyConstraint(
            ["added_by"], ["users.id"], name=op.f("fk_room_members_added_by_users")
        ),
        sa.PrimaryKeyConstraint("room_id", "user_id", name=op.f("pk_room_members")),
    )
    op.create_index(op.f("ix_room_members_user_id"), "room_members", ["user_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_room_members_user_id"), table_name="room_members")
    op.drop_table("room_members")
