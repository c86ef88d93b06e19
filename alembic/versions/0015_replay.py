"""replay: a turn keeps the snapshot it ran on; replays are marked

Revision ID: 0015_replay
Revises: 0014_evals
Create Date: 2026-11-26 18:00:00

``turns.snapshot``: the JSON of the turn's ``TurnSnapshot`` (roster, history, settings),
so ``POST /v1/turns/{id}/replay`` re-runs it on the inputs it had, whatever was edited
since (docs/replay.md); ``NULL`` for turns recorded before (they cannot be replayed
exactly). ``sessions.replay_of``: the turn a replay session replays.
``llm_calls.replayed``: the call was served from the record, nothing was paid.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015_replay"
down_revision: str | None = "0014_evals"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


# Plain ALTER TABLE, not batch mode (as in 0010): SQLite cannot recreate tables with rows
# under foreign keys. Hence an index, not a constraint, for replay_of.
def upgrade() -> None:
    op.add_column("turns", sa.Column("snapshot", sa.Text(), nullable=True))
    op.add_column("sessions", sa.Column("replay_of", sa.Uuid(), nullable=True))
    op.create_index("ix_sessions_replay_of", "sessions", ["replay_of"])
    op.add_column(
        "llm_calls",
        sa.Column("replayed", sa.Boolean(), nullable=False, server_default=sa.false()),
    )


def downgrade() -> None:
    op.drop_column("llm_calls", "replayed")
    op.drop_index("ix_sessions_replay_of", table_name="sessions")
    op.drop_column("sessions", "replay_of")
    op.drop_column("turns", "snapshot")
