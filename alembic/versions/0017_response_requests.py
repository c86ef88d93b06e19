"""response_requests: what a Responses request said besides its input, for a later GET

Revision ID: 0017_response_requests
Revises: 0016_eval_heartbeat
Create Date: 2026-11-27 10:15:00

One row per response (its turn's id): the model name as the client sent it, ``background``,
``instructions``, ``previous_response_id``, ``metadata`` and when it was made. ``GET
/openai/v1/responses/{id}`` used to answer with none of them (docs/openai.md). No foreign
key to ``turns``: the row is written as the turn starts, the turn's only at its end.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017_response_requests"
down_revision: str | None = "0016_eval_heartbeat"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "response_requests",
        sa.Column("turn_id", sa.Uuid(), nullable=False),
        sa.Column("owner_id", sa.Uuid(), nullable=False),
        sa.Column("model", sa.String(length=200), nullable=False),
        sa.Column("background", sa.Boolean(), nullable=False),
        sa.Column("instructions", sa.Text(), nullable=True),
        sa.Column("previous_response_id", sa.String(length=200), nullable=True),
        sa.Column("metadata", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("turn_id"),
    )


def downgrade() -> None:
    op.drop_table("response_requests")
