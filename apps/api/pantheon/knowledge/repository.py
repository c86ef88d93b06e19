"""Document and chunk queries: every read is scoped to an owner (or, for the background
worker, to one document id it was handed)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import TypeVarTuple

from sqlalchemy import ColumnElement, Select, Uuid, any_, cast, delete, func, select, update
from sqlalchemy.dialects.postgresql import ARRAY

from pantheon.db.base import utcnow
from pantheon.db.models import Chunk, Document
from pantheon.db.repository import Repository, as_uuid
from pantheon.knowledge.formats import DocumentStatus


class DocumentRepository(Repository):
    def _owned(self, owner_id: uuid.UUID) -> Select[Document]:
        return select(Document).where(Document.owner_id == owner_id)

    async def get(self, owner_id: uuid.UUID, document_id: str | uuid.UUID) -> Document | None:
        ident = as_uuid(document_id)
        if ident is None:
            return None
        return await self.session.scalar(self._owned(owner_id).where(Document.id == ident))

    async def get_any(self, document_id: uuid.UUID) -> Document | None:
        """For the ingest worker, which was handed the id by an owner-checked request."""
        return await self.session.get(Document, document_id)

    async def in_place(self, place: str, sha256: str) -> Document | None:
        query = select(Document).where(Document.place == place, Document.sha256 == sha256)
        return await self.session.scalar(query)

    async def list_page(self, place: str, *, limit: int, offset: int) -> tuple[list[Document], int]:
        """The place's documents, whoever uploaded them (a shared room's are its members')."""
        query = (
            select(Document)
            .where(Document.place == place)
            .order_by(Document.created_at, Document.id)
        )
        return await self.page(query, limit=limit, offset=offset)

    async def pending(self) -> list[Document]:
        """Every pending document, oldest first (the ingest queue's restart)."""
        query = (
            select(Document)
            .where(Document.status == DocumentStatus.PENDING)
            .order_by(Document.created_at)
        )
        return list((await self.session.scalars(query)).all())

    async def fail_pending(self, place: str, error: str) -> list[uuid.UUID]:
        """End the place's pending documents ``failed`` with ``error``; their ids."""
        query = (
            update(Document)
            .where(Document.place == place, Document.status == DocumentStatus.PENDING)
            .values(status=DocumentStatus.FAILED, error=error, updated_at=utcnow())
            .returning(Document.id)
        )
        return list((await self.session.scalars(query)).all())

    def add(self, row: Document) -> None:
        self.session.add(row)

    async def delete(self, row: Document) -> None:
        """The document and its chunks (explicitly: SQLite's FTS triggers see each row)."""
        await self.session.execute(delete(Chunk).where(Chunk.document_id == row.id))
        await self.session.delete(row)

    async def replace_chunks(self, document_id: uuid.UUID, chunks: Sequence[Chunk]) -> None:
        await self.session.execute(delete(Chunk).where(Chunk.document_id == document_id))
        self.session.add_all(chunks)


Ts = TypeVarTuple("Ts")


class ChunkRepository(Repository):
    """Search-side reads over the chunks of ready documents in some places. A place is the
    unit of access: callers check the caller may see each place before they ask here."""

    def scoped(self, places: Sequence[str], query: Select[*Ts]) -> Select[*Ts]:
        """``query`` over chunks, restricted to ready documents in ``places``."""
        return query.join(Document, Document.id == Chunk.document_id).where(*self._ready(places))

    @staticmethod
    def _ready(places: Sequence[str]) -> list[ColumnElement[bool]]:
        """The conditions on ``Document`` for the ready documents in ``places``."""
        return [
            Document.place.in_(places),
            Document.status == DocumentStatus.READY,
        ]

    def in_scope(self, places: Sequence[str]) -> ColumnElement[bool]:
        """PostgreSQL: chunks whose document is in the array of the scope's ready document
        ids (computed once, in the same statement). The planner then starts from those
        documents' chunks (index on ``document_id``) when they are few, instead of matching
        the words across every place's chunks and joining the documents afterwards."""
        ids = select(func.array_agg(Document.id)).where(*self._ready(places))
        return Chunk.document_id == any_(cast(ids.scalar_subquery(), ARRAY(Uuid())))

    async def ranked_pool(
        self, query: Select[uuid.UUID, str], places: Sequence[str], limit: int
    ) -> tuple[list[tuple[uuid.UUID, str]], int]:
        """The first ``limit`` rows of ``query`` and the chunk total of the scope's ready
        documents (for the word weights), in one round trip."""
        total = select(func.sum(Document.chunk_count)).where(*self._ready(places))
        rows = (
            await self.session.execute(query.add_columns(total.scalar_subquery()).limit(limit))
        ).all()
        return [(row[0], row[1]) for row in rows], int(rows[0][2] or 0) if rows else 0

    async def vectors(
        self, places: Sequence[str], embedder: str
    ) -> tuple[list[uuid.UUID], list[bytes]]:
        query = self.scoped(
            places, select(Chunk.id, Chunk.embedding).where(Chunk.embedder == embedder)
        )
        rows = (await self.session.execute(query)).all()
        return [r[0] for r in rows], [r[1] for r in rows]

    async def fingerprint(self, place: str) -> tuple[int, int, str]:
        """What a place's vectors were built from (see ``vector_cache``): its ready
        documents' count, chunk total and latest update, from the documents table alone
        (reindex touches the documents whose chunks it re-embeds)."""
        query = select(
            func.count(Document.id), func.sum(Document.chunk_count), func.max(Document.updated_at)
        ).where(
            Document.place == place,
            Document.status == DocumentStatus.READY,
        )
        documents, chunks, latest = (await self.session.execute(query)).one()
        return int(documents), int(chunks or 0), str(latest)

    async def hits(self, ids: Sequence[uuid.UUID]) -> dict[uuid.UUID, tuple[Chunk, str]]:
        """Chunks by id with their document's filename."""
        query = (
            select(Chunk, Document.filename)
            .join(Document, Document.id == Chunk.document_id)
            .where(Chunk.id.in_(ids))
        )
        return {chunk.id: (chunk, name) for chunk, name in await self.session.execute(query)}

    async def stale(self, embedder: str, limit: int) -> list[tuple[uuid.UUID, str]]:
        """Chunks embedded by another embedder (for reindex), ``limit`` at a time."""
        query = select(Chunk.id, Chunk.text).where(Chunk.embedder != embedder).limit(limit)
        return [(r[0], r[1]) for r in await self.session.execute(query)]

    async def count_stale(self, embedder: str) -> int:
        query = select(func.count()).select_from(Chunk).where(Chunk.embedder != embedder)
        return int((await self.session.scalar(query)) or 0)

    async def touch_documents(self, chunk_ids: Sequence[uuid.UUID]) -> None:
        """Mark the documents of these chunks updated (their vectors changed)."""
        owners = select(Chunk.document_id).where(Chunk.id.in_(chunk_ids))
        await self.session.execute(
            update(Document).where(Document.id.in_(owners)).values(updated_at=utcnow())
        )

    async def set_embedding(
        self, chunk_id: uuid.UUID, embedder: str, dim: int, blob: bytes
    ) -> None:
        await self.session.execute(
            update(Chunk)
            .where(Chunk.id == chunk_id)
            .values(embedder=embedder, dim=dim, embedding=blob)
        )
