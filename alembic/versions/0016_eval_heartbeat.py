"""eval runs: a heartbeat, so any replica can end the runs of a process that died

Revision ID: 0016_eval_heartbeat
Revises: 0015_replay
Create Date: 2026-11-27 09:30:00

``eval_runs.heartbeat_at``: when the process running the run last marked it alive
(every ``evals.heartbeat_s``); a ``running`` run not marked for ``evals.stale_s`` is
interrupted by whichever replica sees it (docs/evals.md). ``NULL`` for runs made before;
their ``created_at`` stands in.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import pantheon.db.base

revision: str = "0016_eval_heartbeat"
down_revision: str | None = "0015_replay"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "eval_runs",
        sa.Column("heartbeat_at", pantheon.db.base.UTCDateTime(timezone=True), nullable=True),
    )


def downgrade() -> None:
    op.drop_column("eval_runs", "heartbeat_at")
