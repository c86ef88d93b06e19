"""knowledge: documents, chunks, and the keyword index of each database

SQLite gets an FTS5 table over ``chunks.text`` (external content, kept in sync by
triggers); PostgreSQL gets a stored generated ``text_tsv`` column
(``to_tsvector('simple', text)``) with a GIN index. Neither is mapped, so autogenerate
ignores them (see ``include_name`` in alembic/env.py).

Revision ID: 0004_knowledge
Revises: 0003_tool_calls
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import pantheon.db.base

revision: str = "0004_knowledge"
down_revision: str | None = "0003_tool_calls"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SQLITE_FTS = [
    "CREATE VIRTUAL TABLE chunks_fts USING fts5(text, content='chunks', content_rowid='rowid',"
    " tokenize='unicode61 remove_diacritics 2')",
    "CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN"
    " INSERT INTO chunks_fts(rowid, text) VALUES (new.rowid, new.text); END",
    "CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN"
    " INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.rowid, old.text);"
    " END",
    "CREATE TRIGGER chunks_fts_update AFTER UPDATE OF text ON chunks BEGIN"
    " INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.rowid, old.text);"
    " INSERT INTO chunks_fts(rowid, text) VALUES (new.rowid, new.text); END",
]
POSTGRES_FTS = [
    # Stored, so ranking reads the vector instead of re-parsing every matching text.
    "ALTER TABLE chunks ADD COLUMN text_tsv tsvector"
    " GENERATED ALWAYS AS (to_tsvector('simple', text)) STORED",
    "CREATE INDEX ix_chunks_text_fts ON chunks USING gin (text_tsv)",
]


def upgrade() -> None:
    op.create_table(
        "documents",
        sa.Column("owner_id", sa.Uuid(), nullable=False),
        sa.Column("room_id", sa.Uuid(), nullable=True),
        sa.Column("agent_id", sa.Uuid(), nullable=True),
        sa.Column("place", sa.String(length=80), nullable=False),
        sa.Column("filename", sa.String(length=255), nullable=False),
        sa.Column("format", sa.String(length=16), nullable=False),
        sa.Column("content_type", sa.String(length=100), nullable=False),
        sa.Column("bytes", sa.Integer(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("chunk_count", sa.Integer(), nullable=False),
        sa.Column("pages", sa.Integer(), nullable=True),
        sa.Column("updated_at", pantheon.db.base.UTCDateTime(timezone=True), nullable=True),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("created_at", pantheon.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["agent_id"], ["agents.id"], name=op.f("fk_documents_agent_id_agents")
        ),
        sa.ForeignKeyConstraint(
            ["owner_id"], ["users.id"], name=op.f("fk_documents_owner_id_users")
        ),
        sa.ForeignKeyConstraint(["room_id"], ["rooms.id"], name=op.f("fk_documents_room_id_rooms")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_documents")),
        sa.UniqueConstraint("place", "sha256", name=op.f("uq_documents_place")),
    )
    with op.batch_alter_table("documents", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_documents_agent_id"), ["agent_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_documents_owner_id"), ["owner_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_documents_room_id"), ["room_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_documents_status"), ["status"], unique=False)
    op.create_table(
        "chunks",
        sa.Column("document_id", sa.Uuid(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("page", sa.Integer(), nullable=True),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("embedder", sa.String(length=200), nullable=False),
        sa.Column("dim", sa.Integer(), nullable=False),
        sa.Column("embedding", sa.LargeBinary(), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.ForeignKeyConstraint(
            ["document_id"],
            ["documents.id"],
            name=op.f("fk_chunks_document_id_documents"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_chunks")),
        sa.UniqueConstraint("document_id", "position", name=op.f("uq_chunks_document_id")),
    )
    with op.batch_alter_table("chunks", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_chunks_document_id"), ["document_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_chunks_embedder"), ["embedder"], unique=False)
    dialect = op.get_bind().dialect.name
    for statement in SQLITE_FTS if dialect == "sqlite" else POSTGRES_FTS:
        op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for trigger in ("chunks_fts_insert", "chunks_fts_delete", "chunks_fts_update"):
            op.execute(f"DROP TRIGGER IF EXISTS {trigger}")
        op.execute("DROP TABLE IF EXISTS chunks_fts")
    else:
        op.execute("DROP INDEX IF EXISTS ix_chunks_text_fts")
        op.execute("ALTER TABLE chunks DROP COLUMN IF EXISTS text_tsv")
    with op.batch_alter_table("chunks", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_chunks_embedder"))
        batch_op.drop_index(batch_op.f("ix_chunks_document_id"))
    op.drop_table("chunks")
    with op.batch_alter_table("documents", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_documents_status"))
        batch_op.drop_index(batch_op.f("ix_documents_room_id"))
        batch_op.drop_index(batch_op.f("ix_documents_owner_id"))
        batch_op.drop_index(batch_op.f("ix_documents_agent_id"))
    op.drop_table("documents")
