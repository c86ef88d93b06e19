"""compact event log and the history index

One compressed event-log row per turn replaces one row per event (issue: each answer was
stored about three times, and a long answer held SQLite's write lock for seconds); an
index lets a turn's prompt read only the session's newest messages.

Revision ID: 0002_compact_event_log
Revises: 0001_initial
Create Date: 2026-11-23 07:55:00
"""

import json
import zlib
from collections.abc import Iterator, Sequence
from itertools import groupby

import sqlalchemy as sa
from alembic import op

revision: str = "0002_compact_event_log"
down_revision: str | None = "0001_initial"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ENCODING = "zlib-jsonl"  # pantheon.live.event_log, frozen here as this revision wrote it

_events = sa.table(
    "turn_events",
    sa.column("turn_id", sa.Uuid()),
    sa.column("seq", sa.Integer()),
    sa.column("type", sa.String(40)),
    sa.column("data", sa.Text()),
)
_logs = sa.table(
    "turn_event_logs",
    sa.column("turn_id", sa.Uuid()),
    sa.column("events", sa.Integer()),
    sa.column("encoding", sa.String(20)),
    sa.column("data", sa.LargeBinary()),
)


def upgrade() -> None:
    op.create_table(
        "turn_event_logs",
        sa.Column("turn_id", sa.Uuid(), nullable=False),
        sa.Column("events", sa.Integer(), nullable=False),
        sa.Column("encoding", sa.String(length=20), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ["turn_id"], ["turns.id"], name=op.f("fk_turn_event_logs_turn_id_turns")
        ),
        sa.PrimaryKeyConstraint("turn_id", name=op.f("pk_turn_event_logs")),
    )
    bind = op.get_bind()
    rows = bind.execute(
        sa.select(_events.c.turn_id, _events.c.data).order_by(_events.c.turn_id, _events.c.seq)
    )
    for turn_id, group in groupby(rows, key=lambda row: row[0]):
        texts = [row[1] for row in group]
        data = zlib.compress("\n".join(texts).encode("utf-8"), 6)
        bind.execute(
            _logs.insert().values(turn_id=turn_id, events=len(texts), encoding=ENCODING, data=data)
        )
    op.drop_table("turn_events")
    with op.batch_alter_table("messages", schema=None) as batch_op:
        batch_op.create_index(
            "ix_messages_session_history", ["session_id", "created_at", "seq"], unique=False
        )


def _event_rows(turn_id: object, data: bytes) -> Iterator[dict[str, object]]:
    raw = zlib.decompress(data).decode("utf-8")
    # Logs written since ADR 0016 end with an empty line and the turn's internal events
    # (never streamed); the per-event table of this revision held the streamed ones only.
    public = raw.split("\n\n", 1)[0]
    for seq, text in enumerate(public.split("\n") if public else [], start=1):
        yield {"turn_id": turn_id, "seq": seq, "type": json.loads(text)["type"], "data": text}


def downgrade() -> None:
    with op.batch_alter_table("messages", schema=None) as batch_op:
        batch_op.drop_index("ix_messages_session_history")
    op.create_table(
        "turn_events",
        sa.Column("turn_id", sa.Uuid(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(length=40), nullable=False),
        sa.Column("data", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["turn_id"], ["turns.id"], name=op.f("fk_turn_events_turn_id_turns")
        ),
        sa.PrimaryKeyConstraint("turn_id", "seq", name=op.f("pk_turn_events")),
    )
    bind = op.get_bind()
    for turn_id, data in bind.execute(sa.select(_logs.c.turn_id, _logs.c.data)):
        rows = list(_event_rows(turn_id, data))
        if rows:
            bind.execute(_events.insert(), rows)
    op.drop_table("turn_event_logs")
