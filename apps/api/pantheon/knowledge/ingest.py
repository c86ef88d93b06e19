"""The background ingest worker: pending document -> parsed -> chunked -> embedded -> ready.

One task owned by the app lifespan takes document ids from a queue, one at a time, so
ingest uses at most one parser process and the embedder's bounded threads, leaving the
event loop and the other core to running turns. Parsing runs in a child process under
``parse_timeout_s`` (``parse_pool``); embedding runs batch by batch (the embedder keeps
its CPU work off the loop, in threads that release the GIL). No database connection is
held while parsing or embedding: the document is read in one short unit and the chunks
and final status written in another. Every outcome ends the document ``ready`` or
``failed`` with a reason; on startup the documents still ``pending`` (a restart
mid-ingest) are queued again.
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
from pantheon.knowledge.parse_pool import ParsePool
from pantheon.knowledge.pgvector import PgVector
from pantheon.knowledge.repository import DocumentRepository
from pantheon.knowledge.sections import ParseError
from pantheon.knowledge.storage import DocumentStore
from pantheon.knowledge.vectors import to_blob
from pantheon.settings import KnowledgeSettings

log = logging.getLogger("pantheon.knowledge")


class IngestWorker:
    """Owns the ingest queue and its task; ``submit`` after the document row is committed."""

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
        self.queue: asyncio.Queue[uuid.UUID] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None

    def submit(self, document_id: uuid.UUID) -> None:
        self.queue.put_nowait(document_id)

    async def start(self) -> int:
        """Queue the documents left pending by an earlier process, start the task."""
        async with unit_of_work(self.db, write=False) as session:
            pending = await DocumentRepository(session).pending_ids()
        for document_id in pending:
            self.submit(document_id)
        self._task = asyncio.create_task(self._run(), name="knowledge-ingest")
        return len(pending)

    async def stop(self) -> None:
        """Cancel the task and kill the parser child; a document mid-ingest stays pending
        and resumes next start."""
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        await self.parser.close()

    async def _run(self) -> None:
        while True:
            document_id = await self.queue.get()
            try:
                await self.ingest(document_id)
            except Exception:  # a bug must not kill the worker: the next document goes on
                log.exception("ingest of document %s crashed", document_id)
            finally:
                self.queue.task_done()

    async def ingest(self, document_id: uuid.UUID) -> None:
        """Ingest one document; it ends ``ready`` or ``failed`` (unless deleted meanwhile)."""
        async with unit_of_work(self.db, write=False) as session:
            row = await DocumentRepository(session).get_any(document_id)
        if row is None or row.status != DocumentStatus.PENDING:
            return
        try:
            parsed = await self.parser.parse(self.store.path_of(document_id), Format(row.format))
            drafts, pages = parsed.chunks, parsed.pages
            vectors = await self._embed([d.text for d in drafts])
        except (ParseError, EmbedderError) as exc:
            await self._finish(document_id, error=str(exc))
        except TimeoutError:
            limit = self.settings.parse_timeout_s
            await self._finish(document_id, error=f"parsing took longer than {limit:g} s")
        except Exception as exc:
            log.exception("ingest of document %s failed", document_id)
            await self._finish(
                document_id, error=f"internal error while ingesting ({type(exc).__name__})"
            )
        else:
            await self._finish(document_id, drafts=drafts, vectors=vectors, pages=pages)

    async def _embed(self, texts: Sequence[str]) -> Vectors:
        batch = self.settings.embed_batch
        parts = [
            await self.embedder.embed_passages(texts[i : i + batch])
            for i in range(0, len(texts), batch)
        ]
        return np.concatenate(parts) if parts else np.zeros((0, self.embedder.dim), np.float32)

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
                return
            assert vectors is not None
            chunks = [self._chunk(document_id, d, v) for d, v in zip(drafts, vectors, strict=True)]
            await repo.replace_chunks(document_id, chunks)
            if self.pgvector is not None:
                await session.flush()
                await self.pgvector.store(session, [c.id for c in chunks], list(vectors))
            row.status, row.chunk_count, row.pages = DocumentStatus.READY, len(chunks), pages

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
