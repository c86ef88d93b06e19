"""Approximate vector search on PostgreSQL with pgvector (HNSW), when the extension is there.

Migration ``0006_pgvector`` creates the ``vector`` extension and an untyped ``vector``
column ``chunks.embedding_vec`` when the server can (a no-op otherwise). The column is
untyped because the embedder's dimension is a setting (384 for the local e5 and the
default hashing embedder, any ``dim`` for an OpenAI-compatible one): HNSW needs a fixed
dimension, so each dimension in use gets a partial expression index,
``ix_chunks_embedding_hnsw_<dim>`` on ``(embedding_vec::vector(<dim>)) vector_cosine_ops``
``WHERE dim = <dim>``, created at startup for the configured embedder.

``detect`` runs once at startup: on PostgreSQL with the column present it creates the
index for the embedder's dimension, fills ``embedding_vec`` for chunks that lack it
(written before the migration) and returns a ``PgVector``; otherwise ``None`` with the
reason, and search stays exact in numpy (ADR 0008). Writers (ingest, reindex) keep the
column in step through ``PgVector.store`` in the same unit as the float32 blob, which stays
the source of truth on both databases.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from pantheon.db.engine import Database
from pantheon.knowledge.embedders.base import Vectors
from pantheon.knowledge.formats import DocumentStatus
from pantheon.knowledge.vectors import from_blobs

COLUMN = "embedding_vec"
MIN_VERSION = (0, 8)  # iterative index scans: a filtered HNSW scan still returns k rows
MAX_HNSW_DIM = 2000  # pgvector's limit for an HNSW index on ``vector``
EF_SEARCH = 100  # >= the candidates asked for (search.CANDIDATES), pgvector's default is 40
BACKFILL_BATCH = 500
log = logging.getLogger("pantheon.knowledge")


def literal(vector: Vectors) -> str:
    """A vector as pgvector's text input, ``[0.1,0.2,...]`` (float32 round-trips exactly)."""
    return "[" + ",".join(repr(float(x)) for x in vector) + "]"


def index_name(dim: int) -> str:
    return f"ix_chunks_embedding_hnsw_{dim}"


async def _column_present(conn: AsyncConnection) -> bool:
    query = text(
        "SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('chunks')"
        " AND attname = :column AND NOT attisdropped"
    )
    return (await conn.scalar(query, {"column": COLUMN})) is not None


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(".")[:2] if part.isdigit())


@dataclass(frozen=True, slots=True)
class Detection:
    index: PgVector | None
    reason: str  # why not, when ``index`` is None


async def detect(db: Database, dim: int) -> Detection:
    """Whether pgvector serves this database and embedder dimension (see module doc)."""
    if db.dialect != "postgresql":
        return Detection(None, f"{db.dialect} has no pgvector")
    if dim > MAX_HNSW_DIM:
        return Detection(None, f"dim {dim} is over pgvector's HNSW limit of {MAX_HNSW_DIM}")
    async with db.engine.connect() as conn:
        query = text("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        version = await conn.scalar(query)
        if version is None:
            return Detection(None, "the vector extension is not installed in this database")
        if not await _column_present(conn):
            return Detection(None, "chunks.embedding_vec missing: run migrate")
        if _version(str(version)) < MIN_VERSION:
            return Detection(None, f"pgvector {version} is older than 0.8 (no iterative scans)")
    async with db.engine.begin() as conn:
        await conn.execute(
            text(
                f"CREATE INDEX IF NOT EXISTS {index_name(dim)} ON chunks USING hnsw"
                f" (({COLUMN}::vector({dim})) vector_cosine_ops) WHERE dim = {dim}"
            )
        )
    index = PgVector(dim)
    filled = await index.backfill(db)
    if filled:
        log.info("pgvector: filled embedding_vec of %d chunk(s)", filled)
    return Detection(index, "")


@dataclass(frozen=True, slots=True)
class PgVector:
    """HNSW search and writes for one embedder dimension."""

    dim: int

    async def store(
        self, session: AsyncSession, ids: Sequence[uuid.UUID], vectors: Sequence[Vectors]
    ) -> None:
        """Set ``embedding_vec`` of these (already flushed) chunks."""
        if not ids:
            return
        statement = text(f"UPDATE chunks SET {COLUMN} = CAST(:v AS vector) WHERE id = :id")
        rows = [{"id": i, "v": literal(v)} for i, v in zip(ids, vectors, strict=True)]
        await session.execute(statement, rows)

    async def clear(self, session: AsyncSession, ids: Sequence[uuid.UUID]) -> None:
        """Unset ``embedding_vec`` of chunks about to change dimension: the partial index of
        the new ``dim`` would otherwise cast the old vector to it (and fail)."""
        statement = text(f"UPDATE chunks SET {COLUMN} = NULL WHERE id = ANY(:ids)")
        await session.execute(statement, {"ids": list(ids)})

    async def backfill(self, db: Database) -> int:
        """Fill ``embedding_vec`` where it is missing (chunks of this dimension), in batches."""
        done = 0
        select = text(
            f"SELECT id, embedding FROM chunks WHERE {COLUMN} IS NULL AND dim = :dim LIMIT :n"
        )
        while True:
            async with db.engine.begin() as conn:
                rows = (await conn.execute(select, {"dim": self.dim, "n": BACKFILL_BATCH})).all()
                if not rows:
                    return done
                matrix = from_blobs([r[1] for r in rows], self.dim)
                await conn.execute(
                    text(f"UPDATE chunks SET {COLUMN} = CAST(:v AS vector) WHERE id = :id"),
                    [{"id": r[0], "v": literal(v)} for r, v in zip(rows, matrix, strict=True)],
                )
            done += len(rows)

    def query_sql(self) -> str:
        """Nearest chunks by cosine distance among the ready documents of some places.

        ``dim`` is inlined so the planner can match the partial index's predicate."""
        dim = self.dim
        return (
            "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id"
            f" WHERE c.dim = {dim} AND c.embedder = :embedder"
            " AND d.place = ANY(:places) AND d.status = :ready"
            f" ORDER BY c.{COLUMN}::vector({dim}) <=> CAST(:q AS vector({dim})) LIMIT :k"
        )

    async def search(
        self,
        session: AsyncSession,
        places: Sequence[str],
        embedder: str,
        query: Vectors,
        k: int,
    ) -> list[uuid.UUID]:
        """The ``k`` nearest chunk ids, best first. Iterative index scans (pgvector >= 0.8)
        keep scanning past filtered-out neighbours, so a small place among many still
        gets its ``k``; older versions ignore the setting."""
        await session.execute(
            text(
                "SELECT set_config('hnsw.ef_search', :ef, true),"
                " set_config('hnsw.iterative_scan', 'strict_order', true)"
            ),
            {"ef": str(max(EF_SEARCH, k))},
        )
        params = {
            "embedder": embedder,
            "places": list(places),
            "ready": DocumentStatus.READY.value,
            "q": literal(query),
            "k": k,
        }
        return list((await session.execute(text(self.query_sql()), params)).scalars().all())
