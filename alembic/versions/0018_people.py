"""people: accounts (login, email, display name, role, status, password) and sign-in sessions

Revision ID: 0018_people
Revises: 0017_response_requests
Create Date: 2026-11-28 14:30:00

``users.name`` becomes ``users.login`` (every existing user keeps its name as its login, and
the CLI and keys keep working); ``is_admin`` becomes ``role`` (``admin | member``), backfilled
before the old column goes. Existing users are ``active`` with no password (keys only).
``login_sessions`` holds a signed-in browser's session by the SHA-256 of its id.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import pantheon.db.base

revision: str = "0018_people"
down_revision: str | None = "0017_response_requests"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.drop_constraint("uq_users_name", type_="unique")
    with op.batch_alter_table("users") as batch:
        batch.alter_column("name", new_column_name="login", existing_type=sa.String(100))
        batch.add_column(sa.Column("email", sa.String(length=320), nullable=True))
        batch.add_column(
            sa.Column("display_name", sa.String(length=200), nullable=False, server_default="")
        )
        batch.add_column(
            sa.Column("role", sa.String(length=16), nullable=False, server_default="member")
        )
        batch.add_column(
            sa.Column("status", sa.String(length=16), nullable=False, server_default="active")
        )
        batch.add_column(sa.Column("password_hash", sa.String(length=255), nullable=True))
    op.execute(sa.text("UPDATE users SET role = 'admin' WHERE is_admin"))
    with op.batch_alter_table("users") as batch:
        batch.create_unique_constraint("uq_users_login", ["login"])
        batch.drop_column("is_admin")
        for column in ("display_name", "role", "status"):
            batch.alter_column(column, server_default=None)
    op.create_table(
        "login_sessions",
        sa.Column("id_hash", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.Column("created_at", pantheon.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("last_seen_at", pantheon.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("expires_at", pantheon.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_login_sessions_user_id_users")
        ),
        sa.PrimaryKeyConstraint("id_hash", name=op.f("pk_login_sessions")),
    )
    op.create_index(op.f("ix_login_sessions_user_id"), "login_sessions", ["user_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_login_sessions_user_id"), table_name="login_sessions")
    op.drop_table("login_sessions")
    with op.batch_alter_table("users") as batch:
        batch.add_column(
            sa.Column("is_admin", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    op.execute(sa.text("UPDATE users SET is_admin = (role = 'admin')"))
    with op.batch_alter_table("users") as batch:
        batch.alter_column("is_admin", server_default=None)
        batch.drop_constraint("uq_users_login", type_="unique")
    with op.batch_alter_table("users") as batch:
        batch.alter_column("login", new_column_name="name", existing_type=sa.String(100))
    with op.batch_alter_table("users") as batch:
        batch.create_unique_constraint("uq_users_name", ["name"])
        for column in ("password_hash", "status", "role", "display_name", "email"):
            batch.drop_column(column)
