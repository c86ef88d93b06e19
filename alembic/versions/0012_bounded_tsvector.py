"""bounded tsvector: PostgreSQL indexes at most the first 16384 characters of a chunk

Revision ID: 0012_bounded_tsvector
Revises: 0011_turn_decisions

A tsvector holds at most 1 MiB; ``to_tsvector`` over a chunk of ~90k distinct words (a
Markdown heading of a megabyte, repeated into its chunks) raised "string is too long for
tsvector" and the chunk could not be stored at all. Chunks are ``chunk_chars`` (at most
8000) plus their heading, so indexing the first 16384 characters keeps every ordinary
chunk whole and bounds the vector at well under the limit (at most ~8k lexemes of up to
4 bytes a character). PostgreSQL 15 cannot change a generated column's expression, so
the column and its GIN index are rebuilt. SQLite's FTS5 has no such limit: no-op there.
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0012_bounded_tsvector"
down_revision: str | None = "0011_turn_decisions"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

MAX_CHARS = 16384


def _rebuild(expression: str) -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute("DROP INDEX IF EXISTS ix_chunks_text_fts")
    op.execute("ALTER TABLE chunks DROP COLUMN IF EXISTS text_tsv")
    op.execute(
        "ALTER TABLE chunks ADD COLUMN text_tsv tsvector"
        f" GENERATED ALWAYS AS (to_tsvector('simple', {expression})) STORED"
    )
    op.execute("CREATE INDEX ix_chunks_text_fts ON chunks USING gin (text_tsv)")


def upgrade() -> None:
    _rebuild(f"left(text, {MAX_CHARS})")


def downgrade() -> None:
    # Back to 0004's expression: fails if a chunk too big for it was stored meanwhile.
    _rebuild("text")
