"""What ``/ready`` says about knowledge: the embedder in use and how vectors are searched.

``vector_search`` is ``pgvector-hnsw`` on PostgreSQL when the ``vector`` extension and the
``chunks.embedding_vec`` column are there (checked once at startup, ``pgvector.detect``),
else ``exact-numpy`` with ``vector_search_reason`` saying why (SQLite, extension missing,
dimension over the HNSW limit), so an operator expecting an ANN index sees at once
whether it is in use (docs/knowledge.md).
"""

from __future__ import annotations

from pydantic import BaseModel

from pantheon.db.engine import Database
from pantheon.knowledge.embedders.base import Embedder
from pantheon.knowledge.pgvector import Detection


class KnowledgeStatus(BaseModel):
    embedder: str
    dim: int
    keyword_search: str
    vector_search: str
    vector_search_reason: str | None = None


def knowledge_status(
    embedder: Embedder, db: Database, detection: Detection | None = None
) -> KnowledgeStatus:
    keyword = "sqlite-fts5" if db.dialect == "sqlite" else "postgres-tsvector"
    if detection is not None and detection.index is not None:
        vector, reason = "pgvector-hnsw", None
    else:
        vector = "exact-numpy"
        reason = detection.reason if detection is not None else "not checked"
    return KnowledgeStatus(
        embedder=embedder.ident, dim=embedder.dim, keyword_search=keyword,
        vector_search=vector, vector_search_reason=reason,
    )  # fmt: skip
