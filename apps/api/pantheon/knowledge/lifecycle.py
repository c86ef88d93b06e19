"""Knowledge's part of the app lifespan: the embedder, the document store, the worker.

``start_knowledge`` builds them from the settings (an unknown or malformed embedder fails
startup, not the first upload), checks once whether pgvector serves vector search
(``pgvector.detect``), starts the worker, which queues the documents an earlier process
left pending, and returns them as one ``Knowledge`` (the app keeps it in its services).
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass

import httpx
from fastapi import BackgroundTasks
from sqlalchemy.ext.asyncio import AsyncSession

from pantheon.db.engine import Database
from pantheon.knowledge.embedders.base import Embedder
from pantheon.knowledge.embedders.config import build_embedder
from pantheon.knowledge.ingest import IngestWorker
from pantheon.knowledge.pgvector import Detection, PgVector, detect
from pantheon.knowledge.place_deleted import stop_ingest_of_place
from pantheon.knowledge.service import PlaceKind
from pantheon.knowledge.storage import DocumentStore
from pantheon.knowledge.vector_cache import VectorCache
from pantheon.settings import Settings

log = logging.getLogger("pantheon.knowledge")


@dataclass(frozen=True, slots=True)
class Knowledge:
    """Knowledge's part of the app's services; ``ingest.stop()`` when the app stops."""

    embedder: Embedder
    ingest: IngestWorker
    vector_cache: VectorCache
    detection: Detection  # whether pgvector serves vector search, and why not

    @property
    def pgvector(self) -> PgVector | None:
        """The HNSW index, when PostgreSQL has pgvector; exact search in numpy otherwise."""
        return self.detection.index

    async def place_deleted(
        self, session: AsyncSession, tasks: BackgroundTasks, kind: PlaceKind, ident: uuid.UUID
    ) -> None:
        """A deleted room or agent takes its waiting ingest with it (``place_deleted.py``);
        the rooms and agents routes reach it through the services, not by import."""
        await stop_ingest_of_place(session, tasks, self.ingest, kind, ident)


async def start_knowledge(settings: Settings, db: Database, http: httpx.AsyncClient) -> Knowledge:
    """Build knowledge's services and start the ingest worker."""
    embedder = build_embedder(settings, http)
    store = DocumentStore(settings.data_dir / "documents")
    detection = await detect(db, embedder.dim)
    if detection.index is None:
        log.info("vector search: exact in numpy (%s)", detection.reason)
    else:
        log.info("vector search: pgvector HNSW (dim %d)", embedder.dim)
    worker = IngestWorker(db, embedder, store, settings.knowledge, detection.index)
    cache = VectorCache(settings.knowledge.vector_cache_bytes)
    resumed = await worker.start()
    if resumed:
        log.info("resuming ingest of %d pending document(s)", resumed)
    return Knowledge(embedder, worker, cache, detection)
