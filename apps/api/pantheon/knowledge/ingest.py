"""The background ingest workers: pending document -> parsed -> chunked -> embedded -> ready.

``ingest_workers`` tasks owned by the app lifespan take documents from a ``FairQueue``
(one per place at a time, no owner holding every worker), so a small document never
waits behind another room's huge one; their embedding batches interleave on the
embedder. Parsing runs in a child process under ``parse_timeout_s`` (``parse_pool``), one
file at a time; embedding runs batch by batch (the embedder keeps its CPU work off the
loop, in threads that release the GIL). Each document has ``ingest_timeout_s`` to be
parsed and embedded. Deleting a document (or its room or agent) cancels its ingest
(``cancel``: a waiting one never starts, a parse in progress is killed with its child,
an embedder call is abandoned), and between batches the worker checks that the row is
still pending, which also covers a delete on another replica. No database connection
is held while parsing or embedding: the document is read in one short unit and the
chunks and final status written in another.
Every outcome ends the document ``ready`` or ``failed`` with a reason, a failed write
included; on startup the documents still ``pending`` (a restart mid-ingest) are queued
again.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Sequence

import numpy as np

from pantheon.db.base import utcnow
from pantheon.db.engine import Database
from pantheon.db.models import Chunk
from pantheon.db.uow import unit_of_work
from pantheon.knowledge.chunking import ChunkDraft
from pantheon.knowledge.embedders.base import Embedder, EmbedderError, Vectors
from pantheon.knowledge.formats import DocumentStatus, Format
from pantheon.knowledge.ingest_queue import FairQueue, Job
from pantheon.knowledge.parse_pool import ParsePool
from pantheon.knowledge.pgvector import PgVector
from pantheon.knowledge.repository import DocumentRepository
from pantheon.knowledge.sections import ParseError
from pantheon.knowledge.storage import DocumentStore
from pantheon.knowledge.vectors import to_blob
from pantheon.observability import metrics
from pantheon.settings import KnowledgeSettings

log = logging.getLogger("pantheon.knowledge")


class Dropped(Exception):
    """The document was deleted (or finished elsewhere) while it was being ingested."""


class IngestWorker:
    """Owns the ingest queue and its tasks; ``submit`` after the document row is committed."""

    def __init__(
        self,
        db: Database,
        embedder: Embedder,
        store: DocumentStore,
        settings: KnowledgeSettings,
        pgvector: PgVector | None = None,
    ) -> None:
        self.db = db
        self.pgvector = pgvector
        self.embedder = embedder
        self.store = store
        self.settings = settings
        self.parser = ParsePool(settings)
        self.queue = FairQueue(owner_cap=settings.ingest_workers - 1)
        self._tasks: list[asyncio.Task[None]] = []
        self._running: dict[uuid.UUID, asyncio.Task[None]] = {}
        self._parse_lock = asyncio.Lock()

    def submit(self, job: Job) -> None:
        self.queue.put(job)
        self._queued_changed()

    def _queued_changed(self) -> None:
        metrics.INGEST_QUEUED.set(len(self.queue))

    def cancel(self, *document_ids: uuid.UUID) -> None:
        """Stop ingesting deleted documents: drop them from the queue or cancel their tasks
        (a parse in progress is killed, so the next file does not wait for it)."""
        for document_id in document_ids:
            self.queue.discard(document_id)
            task = self._running.get(document_id)
            if task is not None:
                task.cancel()
        self._queued_changed()

    async def start(self) -> int:
        """Queue the documents left pending by an earlier process, start the tasks."""
        async with unit_of_work(self.db, write=False) as session:
            pending = await DocumentRepository(session).pending()
        for row in pending:
            self.submit(Job.of(row))
        self._tasks = [
            asyncio.create_task(self._run(), name=f"knowledge-ingest-{n}")
            for n in range(self.settings.ingest_workers)
        ]
        return len(pending)

    async def stop(self) -> None:
        """Cancel the tasks and kill the parser child; a document mid-ingest stays pending
        and resumes next start."""
        tasks = [*self._tasks, *self._running.values()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self.parser.close()

    async def _run(self) -> None:
        while True:
            job = await self.queue.get()
            self._queued_changed()
            task = asyncio.create_task(self.ingest(job.document_id))
            self._running[job.document_id] = task
            try:
                await asyncio.wait([task])
                if not task.cancelled() and task.exception() is not None:
                    # a bug must not kill the worker: the next document goes on
                    log.error("ingest of document %s crashed", job.document_id,
                              exc_info=task.exception())  # fmt: skip
            finally:
                task.cancel()  # only matters when this worker itself is being cancelled
                del self._running[job.document_id]
                self.queue.done(job)

    async def ingest(self, document_id: uuid.UUID) -> None:
        """Ingest one document; it ends ``ready`` or ``failed`` (unless deleted meanwhile)."""
        async with unit_of_work(self.db, write=False) as session:
            row = await DocumentRepository(session).get_any(document_id)
        if row is None or row.status != DocumentStatus.PENDING:
            return
        deadline = asyncio.timeout(self.settings.ingest_timeout_s)
        try:
            async with deadline:
                drafts, pages = await self._chunks(document_id, Format(row.format))
                vectors = await self._embed(document_id, [d.text for d in drafts])
        except Dropped:
            return
        except Exception as exc:
            await self._finish(document_id, error=self._reason(exc, deadline.expired()))
            return
        try:
            await self._finish(document_id, drafts=drafts, vectors=vectors, pages=pages)
        except Exception as exc:  # the chunks could not be stored: never leave it pending
            log.exception("storing document %s failed", document_id)
            cause = str(getattr(exc, "orig", exc)).split("\n", 1)[0][:300]
            await self._finish(document_id, error=f"could not store the chunks: {cause}")

    def _reason(self, exc: Exception, expired: bool) -> str:
        """Why a document failed, for its ``error``."""
        if expired:
            limit = self.settings.ingest_timeout_s
            return f"ingest took longer than {limit:g} s (knowledge.ingest_timeout_s)"
        if isinstance(exc, ParseError | EmbedderError):
            return str(exc)
        if isinstance(exc, TimeoutError):
            return f"parsing took longer than {self.settings.parse_timeout_s:g} s"
        log.error("ingest failed", exc_info=exc)
        return f"internal error while ingesting ({type(exc).__name__})"

    async def _chunks(
        self, document_id: uuid.UUID, fmt: Format
    ) -> tuple[list[ChunkDraft], int | None]:
        # One file at a time, so the next never queues in the child with its timeout
        # running. A cancel (delete, deadline) kills the child before the lock is let go.
        async with self._parse_lock:
            parsed = await self.parser.parse(self.store.path_of(document_id), fmt)
        return parsed.chunks, parsed.pages

    async def _embed(self, document_id: uuid.UUID, texts: Sequence[str]) -> Vectors:
        batch = self.settings.embed_batch
        parts = []
        for start in range(0, len(texts), batch):
            if not await self._still_pending(document_id):
                raise Dropped
            parts.append(await self.embedder.embed_passages(texts[start : start + batch]))
        return np.concatenate(parts) if parts else np.zeros((0, self.embedder.dim), np.float32)

    async def _still_pending(self, document_id: uuid.UUID) -> bool:
        """Whether the row is still there and pending (a delete may come from any replica)."""
        async with unit_of_work(self.db, write=False) as session:
            row = await DocumentRepository(session).get_any(document_id)
            return row is not None and row.status == DocumentStatus.PENDING

    async def _finish(
        self,
        document_id: uuid.UUID,
        *,
        error: str | None = None,
        drafts: Sequence[ChunkDraft] = (),
        vectors: Vectors | None = None,
        pages: int | None = None,
    ) -> None:
        """One write: the chunks and the final status (nothing if the row was deleted)."""
        async with unit_of_work(self.db, write=True) as session:
            repo = DocumentRepository(session)
            row = await repo.get_any(document_id)
            if row is None or row.status != DocumentStatus.PENDING:
                return
            row.updated_at = utcnow()
            if error is not None:
                row.status, row.error = DocumentStatus.FAILED, error[:1000]
            else:
                assert vectors is not None
                chunks = [
                    self._chunk(document_id, d, v) for d, v in zip(drafts, vectors, strict=True)
                ]
                await repo.replace_chunks(document_id, chunks)
                if self.pgvector is not None:
                    await session.flush()
                    await self.pgvector.store(session, [c.id for c in chunks], list(vectors))
                row.status, row.chunk_count, row.pages = DocumentStatus.READY, len(chunks), pages
        # counted once committed (a failed store is retried below as ``failed``)
        metrics.INGEST_DOCUMENTS.labels(outcome=str(row.status)).inc()

    def _chunk(self, document_id: uuid.UUID, draft: ChunkDraft, vector: Vectors) -> Chunk:
        return Chunk(
            id=uuid.uuid4(),
            document_id=document_id,
            position=draft.position,
            page=draft.page,
            text=draft.text,
            embedder=self.embedder.ident,
            dim=self.embedder.dim,
            embedding=to_blob(vector),
        )
