"""session forks: a session may fork another at one of its turns

Revision ID: 0013_session_forks
Revises: 0012_bounded_tsvector

``sessions.parent_id`` and ``sessions.fork_turn_id`` name the session a fork was made
from and the turn it forks at (docs/adr/0024): the fork's history reads through them, so
no message, event or call row is copied. Existing rows: no parent.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013_session_forks"
down_revision: str | None = "0012_bounded_tsvector"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Plain ALTER TABLE, as in 0005 and 0007: SQLite adds and drops plain columns in place.


def upgrade() -> None:
    op.add_column("sessions", sa.Column("parent_id", sa.Uuid(), nullable=True))
    op.add_column("sessions", sa.Column("fork_turn_id", sa.Uuid(), nullable=True))


def downgrade() -> None:
    op.drop_column("sessions", "fork_turn_id")
    op.drop_column("sessions", "parent_id")
