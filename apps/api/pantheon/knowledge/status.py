"""What ``/ready`` says about knowledge: the embedder in use and how vectors are searched.

Vector search is exact on both databases today (numpy cosine over float32 blobs, in a
worker thread); ``vector_search`` says so, so an operator expecting an ANN index on
PostgreSQL (pgvector) sees that it is not in use (docs/knowledge.md explains why).
"""

from __future__ import annotations

from pydantic import BaseModel

from pantheon.db.engine import Database
from pantheon.knowledge.embedders.base import Embedder


class KnowledgeStatus(BaseModel):
    embedder: str
    dim: int
    keyword_search: str
    vector_search: str


def knowledge_status(embedder: Embedder, db: Database) -> KnowledgeStatus:
    keyword = "sqlite-fts5" if db.dialect == "sqlite" else "postgres-tsvector"
    return KnowledgeStatus(
        embedder=embedder.ident, dim=embedder.dim, keyword_search=keyword,
        vector_search="exact-numpy",
    )  # fmt: skip
