"""pgvector: the vector extension and an untyped chunks.embedding_vec, where available

On PostgreSQL whose server offers the ``vector`` extension (``pg_available_extensions``)
and lets this role create it (tried in a savepoint), create it and add
``chunks.embedding_vec vector`` (no dimension: the embedder's dimension is a setting; the
HNSW index per dimension is made at startup by ``pantheon.knowledge.pgvector.detect``,
which also fills the column). Elsewhere (SQLite, PostgreSQL without pgvector) this
revision does nothing and search stays exact in numpy. Downgrade is symmetric: it drops
the column (and so its indexes) and the extension, unless something else in the database
still uses it.

Revision ID: 0006_pgvector
Revises: 0005_sessions
"""

import logging
from collections.abc import Sequence

from alembic import op
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

revision: str = "0006_pgvector"
down_revision: str | None = "0005_sessions"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None
log = logging.getLogger("alembic.runtime.migration")


def _created() -> bool:
    """The extension exists now (created here if the server has it and the role may)."""
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return False
    query = text("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")
    if bind.scalar(query) is None:
        return False
    try:
        with bind.begin_nested():
            bind.execute(text("CREATE EXTENSION IF NOT EXISTS vector"))
    except DBAPIError as exc:
        log.warning("pgvector not enabled, vector search stays exact: %s", exc.orig)
        return False
    return True


def upgrade() -> None:
    if not _created():
        return
    op.execute("ALTER TABLE chunks ADD COLUMN IF NOT EXISTS embedding_vec vector")


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute("ALTER TABLE chunks DROP COLUMN IF EXISTS embedding_vec")
    # Only if nothing else in the database still uses it (RESTRICT would fail the downgrade).
    op.execute(
        "DO $$ BEGIN DROP EXTENSION IF EXISTS vector; "
        "EXCEPTION WHEN dependent_objects_still_exist THEN NULL; END $$"
    )
