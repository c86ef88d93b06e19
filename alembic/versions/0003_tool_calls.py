"""tool calls of a turn; LLM call timings as integer milliseconds

Revision ID: 0003_tool_calls
Revises: 0002_compact_event_log
Create Date: 2026-11-23 07:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003_tool_calls"
down_revision: str | None = "0002_compact_event_log"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "tool_calls",
        sa.Column("turn_id", sa.Uuid(), nullable=False),
        sa.Column("message_id", sa.Uuid(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("agent_key", sa.String(length=64), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("call_id", sa.String(length=200), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("arguments", sa.Text(), nullable=False),
        sa.Column("result", sa.Text(), nullable=False),
        sa.Column("ok", sa.Boolean(), nullable=False),
        sa.Column("duration_ms", sa.Integer(), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.ForeignKeyConstraint(
            ["message_id"], ["messages.id"], name=op.f("fk_tool_calls_message_id_messages")
        ),
        sa.ForeignKeyConstraint(
            ["turn_id"], ["turns.id"], name=op.f("fk_tool_calls_turn_id_turns")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tool_calls")),
        sa.UniqueConstraint("turn_id", "seq", name=op.f("uq_tool_calls_turn_id")),
    )
    with op.batch_alter_table("tool_calls", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_tool_calls_turn_id"), ["turn_id"], unique=False)
    # The engine measures whole milliseconds; the table now says so too.
    with op.batch_alter_table("llm_calls", schema=None) as batch_op:
        for column, nullable in (("latency_ms", False), ("ttft_ms", True)):
            batch_op.alter_column(
                column,
                existing_type=sa.Double(),
                type_=sa.Integer(),
                existing_nullable=nullable,
                postgresql_using=f"round({column})::integer",
            )


def downgrade() -> None:
    with op.batch_alter_table("llm_calls", schema=None) as batch_op:
        for column, nullable in (("latency_ms", False), ("ttft_ms", True)):
            batch_op.alter_column(
                column,
                existing_type=sa.Integer(),
                type_=sa.Double(),
                existing_nullable=nullable,
            )
    with op.batch_alter_table("tool_calls", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_tool_calls_turn_id"))
    op.drop_table("tool_calls")
