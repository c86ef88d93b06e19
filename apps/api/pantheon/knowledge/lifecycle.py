"""Knowledge's part of the app lifespan: the embedder, the document store, the worker.

``start_knowledge`` builds them from the settings (an unknown or malformed embedder fails
startup, not the first upload), puts them on ``app.state`` (``embedder``, ``ingest``,
``vector_cache``) and starts the worker, which queues the documents an earlier process left pending.
"""

from __future__ import annotations

import logging

import httpx
from fastapi import FastAPI

from pantheon.db.engine import Database
from pantheon.knowledge.embedders.config import build_embedder
from pantheon.knowledge.ingest import IngestWorker
from pantheon.knowledge.storage import DocumentStore
from pantheon.knowledge.vector_cache import VectorCache
from pantheon.settings import Settings

log = logging.getLogger("pantheon.knowledge")


async def start_knowledge(
    app: FastAPI, settings: Settings, db: Database, http: httpx.AsyncClient
) -> IngestWorker:
    embedder = build_embedder(settings, http)
    store = DocumentStore(settings.data_dir / "documents")
    worker = IngestWorker(db, embedder, store, settings.knowledge)
    app.state.embedder = embedder
    app.state.ingest = worker
    app.state.vector_cache = VectorCache(settings.knowledge.vector_cache_bytes)
    resumed = await worker.start()
    if resumed:
        log.info("resuming ingest of %d pending document(s)", resumed)
    return worker
