"""``pantheon knowledge reindex``: re-embed every chunk made by another embedder.

After ``PANTHEON_KNOWLEDGE__EMBEDDER`` (or an embedder's model) changes, vector search
only sees chunks of the new embedder; this command re-embeds the others in batches,
reading a batch, embedding it with no connection held, then writing it in one unit, so
it can run next to a live server and be interrupted and restarted at any point.
"""

from __future__ import annotations

from typing import TextIO

import httpx

from pantheon.db.engine import Database
from pantheon.db.uow import unit_of_work
from pantheon.knowledge.embedders.base import Embedder
from pantheon.knowledge.embedders.config import build_embedder
from pantheon.knowledge.pgvector import detect
from pantheon.knowledge.repository import ChunkRepository
from pantheon.knowledge.vectors import to_blob
from pantheon.settings import Settings


async def reindex(settings: Settings, out: TextIO) -> int:
    """Re-embed stale chunks with the configured embedder; the number re-embedded."""
    db = Database.from_url(settings.resolved_database_url)
    try:
        async with httpx.AsyncClient() as http:
            embedder = build_embedder(settings, http)
            return await _reindex(db, embedder, settings.knowledge.embed_batch, out)
    finally:
        await db.dispose()


async def _reindex(db: Database, embedder: Embedder, batch: int, out: TextIO) -> int:
    pgvector = (await detect(db, embedder.dim)).index
    async with unit_of_work(db, write=False) as session:
        stale = await ChunkRepository(session).count_stale(embedder.ident)
    print(f"{stale} chunk(s) to re-embed with {embedder.ident}", file=out)
    done = 0
    while True:
        async with unit_of_work(db, write=False) as session:
            rows = await ChunkRepository(session).stale(embedder.ident, batch)
        if not rows:
            break
        vectors = await embedder.embed_passages([text for _, text in rows])
        async with unit_of_work(db, write=True) as session:
            repo = ChunkRepository(session)
            ids = [chunk_id for chunk_id, _ in rows]
            if pgvector is not None:
                await pgvector.clear(session, ids)
            for (chunk_id, _), vector in zip(rows, vectors, strict=True):
                await repo.set_embedding(chunk_id, embedder.ident, embedder.dim, to_blob(vector))
            if pgvector is not None:
                await session.flush()
                await pgvector.store(session, ids, list(vectors))
            # a new updated_at: servers' vector caches see the change (vector_cache.py)
            await repo.touch_documents(ids)
        done += len(rows)
        print(f"re-embedded {done}/{stale}", file=out)
    return done
