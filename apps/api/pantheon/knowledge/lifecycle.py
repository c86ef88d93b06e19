"""Knowledge's part of the app lifespan: the embedder, the document store, the worker.

``start_knowledge`` builds them from the settings (an unknown or malformed embedder fails
startup, not the first upload), checks once whether pgvector serves vector search
(``pgvector.detect``), puts them on ``app.state`` (``embedder``, ``ingest``,
``vector_cache``, ``pgvector``, ``vector_detection``) and starts the worker, which queues
the documents an earlier process left pending.
"""

from __future__ import annotations

import logging

import httpx
from fastapi import FastAPI

from pantheon.db.engine import Database
from pantheon.knowledge.embedders.config import build_embedder
from pantheon.knowledge.ingest import IngestWorker
from pantheon.knowledge.pgvector import detect
from pantheon.knowledge.storage import DocumentStore
from pantheon.knowledge.vector_cache import VectorCache
from pantheon.settings import Settings

log = logging.getLogger("pantheon.knowledge")


async def start_knowledge(
    app: FastAPI, settings: Settings, db: Database, http: httpx.AsyncClient
) -> IngestWorker:
    embedder = build_embedder(settings, http)
    store = DocumentStore(settings.data_dir / "documents")
    detection = await detect(db, embedder.dim)
    if detection.index is None:
        log.info("vector search: exact in numpy (%s)", detection.reason)
    else:
        log.info("vector search: pgvector HNSW (dim %d)", embedder.dim)
    worker = IngestWorker(db, embedder, store, settings.knowledge, detection.index)
    app.state.embedder = embedder
    app.state.ingest = worker
    app.state.vector_cache = VectorCache(settings.knowledge.vector_cache_bytes)
    app.state.pgvector = detection.index
    app.state.vector_detection = detection
    resumed = await worker.start()
    if resumed:
        log.info("resuming ingest of %d pending document(s)", resumed)
    return worker
