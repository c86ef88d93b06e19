"""Hybrid search: keyword ranks and vector ranks fused by reciprocal rank fusion (RRF).

Each ranker returns up to ``CANDIDATES`` chunk ids of the caller's ready documents in the
given places; RRF scores a chunk ``sum(1 / (RRF_K + rank))`` over the rankers that found
it (k = 60, the value of Cormack et al. 2009), so neither BM25 nor cosine scales need
calibrating. Vectors are compared exactly in numpy, in a worker thread, over the chunks of
the current embedder only; each place's matrix is kept in a ``VectorCache`` between
searches and reloaded when its fingerprint changes. On PostgreSQL with pgvector
(``pgvector.detect`` at startup) the vector ranking is an HNSW index scan in the
database instead (``ORDER BY embedding_vec <=> query LIMIT CANDIDATES``). The query is
embedded before any database read, so no connection waits on the embedder. If the
embedder fails the keyword ranks still answer. The keyword ranking is the database's
match re-ranked with the places' own word weights (``term_weights``).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Sequence
from typing import Literal

import numpy as np

from pantheon.knowledge.embedders.base import Embedder, EmbedderError, Vectors
from pantheon.knowledge.keyword import postgres_ranked, sqlite_ranked, terms
from pantheon.knowledge.pgvector import PgVector
from pantheon.knowledge.repository import ChunkRepository
from pantheon.knowledge.schemas import SearchHit
from pantheon.knowledge.term_weights import POOL, rerank
from pantheon.knowledge.vector_cache import PlaceVectors, VectorCache
from pantheon.knowledge.vectors import from_blobs, top_k

RRF_K = 60
CANDIDATES = 50
Mode = Literal["hybrid", "vector", "keyword"]
log = logging.getLogger("pantheon.knowledge")


def fuse(rankings: Sequence[Sequence[uuid.UUID]], k: int = RRF_K) -> list[tuple[uuid.UUID, float]]:
    """Reciprocal rank fusion of several best-first id lists, best first (ties by first seen)."""
    scores: dict[uuid.UUID, float] = {}
    for ranking in rankings:
        for rank, ident in enumerate(ranking, start=1):
            scores[ident] = scores.get(ident, 0.0) + 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda item: -item[1])


class KnowledgeSearch:
    def __init__(
        self,
        chunks: ChunkRepository,
        embedder: Embedder,
        dialect: str,
        cache: VectorCache | None = None,
        pgvector: PgVector | None = None,
    ) -> None:
        self.chunks = chunks
        self.embedder = embedder
        self.dialect = dialect
        self.cache = cache
        self.pgvector = pgvector if pgvector is not None and pgvector.dim == embedder.dim else None

    async def search(
        self,
        places: Sequence[str],
        query: str,
        limit: int,
        mode: Mode = "hybrid",
    ) -> list[SearchHit]:
        """The best ``limit`` passages for ``query`` among the documents of ``places``
        (whoever uploaded them: the caller checked it may see each place, see
        ``DocumentService.place`` and ``knowledge.tool.scope_places``)."""
        query_vector = await self._embed(query) if mode != "keyword" else None
        rankings: list[list[uuid.UUID]] = []
        if mode != "vector":
            rankings.append(await self._keyword(places, query))
        if query_vector is not None:
            rankings.append(await self._vector(places, query_vector))
        fused = fuse(rankings)[:limit]
        rows = await self.chunks.hits([ident for ident, _ in fused])
        return [
            SearchHit(
                document_id=rows[ident][0].document_id,
                filename=rows[ident][1],
                chunk_id=ident,
                text=rows[ident][0].text,
                page=rows[ident][0].page,
                score=round(score, 6),
            )
            for ident, score in fused
            if ident in rows
        ]

    async def _embed(self, query: str) -> Vectors | None:
        try:
            return await self.embedder.embed_query(query)
        except EmbedderError as exc:
            log.warning("query embedding failed, keyword search only: %s", exc)
            return None

    async def _keyword(self, places: Sequence[str], query: str) -> list[uuid.UUID]:
        words = terms(query)
        if not words:
            return []
        if self.dialect == "sqlite":
            ranked = self.chunks.scoped(places, sqlite_ranked(words))
        else:
            ranked = postgres_ranked(words).where(self.chunks.in_scope(places))
        pool, total = await self.chunks.ranked_pool(ranked, places, POOL)
        return (await asyncio.to_thread(rerank, words, pool, total))[:CANDIDATES]

    async def _vector(self, places: Sequence[str], query_vector: Vectors) -> list[uuid.UUID]:
        if self.pgvector is not None:
            return await self.pgvector.search(
                self.chunks.session, places, self.embedder.ident, query_vector, CANDIDATES
            )
        parts = [await self._place_vectors(place) for place in places]
        ids = [ident for part in parts for ident in part.ids]
        if not ids:
            return []
        matrices = [part.matrix for part in parts if part.ids]
        matrix = matrices[0] if len(matrices) == 1 else np.concatenate(matrices)
        best = await asyncio.to_thread(top_k, ids, matrix, query_vector, CANDIDATES)
        return [ident for ident, _ in best]

    async def _place_vectors(self, place: str) -> PlaceVectors:
        """The place's matrix from the cache, or loaded (fingerprint read first, so the
        data is never older than the fingerprint it is stored under)."""
        ident = self.embedder.ident
        fingerprint = await self.chunks.fingerprint(place)
        key = (place, ident)
        cached = self.cache.get(key, fingerprint) if self.cache is not None else None
        if cached is not None:
            return cached
        ids, blobs = await self.chunks.vectors([place], ident)
        matrix = await asyncio.to_thread(from_blobs, blobs, self.embedder.dim)
        entry = PlaceVectors(fingerprint, ids, matrix)
        if self.cache is not None:
            self.cache.put(key, entry)
        return entry
