"""Read schemas of the knowledge API (field names are the SPEC's)."""

from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import BaseModel, Field

from pantheon.db.models import Document
from pantheon.knowledge.formats import DocumentStatus


class DocumentRead(BaseModel):
    id: uuid.UUID
    room_id: uuid.UUID | None
    agent_id: uuid.UUID | None
    filename: str
    format: str
    content_type: str
    bytes: int
    sha256: str
    status: DocumentStatus
    chunks: int = Field(description="Chunks stored (0 until ready)")
    pages: int | None = Field(description="Pages (PDF) or sections that gave text")
    error: str | None = Field(description="Why ingest failed, when status is failed")
    created_at: datetime
    updated_at: datetime | None

    @classmethod
    def of(cls, row: Document) -> DocumentRead:
        """The one mapping from a row to what clients read."""
        return cls(
            id=row.id,
            room_id=row.room_id,
            agent_id=row.agent_id,
            filename=row.filename,
            format=row.format,
            content_type=row.content_type,
            bytes=row.bytes,
            sha256=row.sha256,
            status=DocumentStatus(row.status),
            chunks=row.chunk_count,
            pages=row.pages,
            error=row.error,
            created_at=row.created_at,
            updated_at=row.updated_at,
        )


class SearchHit(BaseModel):
    document_id: uuid.UUID
    filename: str
    chunk_id: uuid.UUID
    text: str
    page: int | None
    score: float = Field(description="Reciprocal-rank-fusion score: higher is better")


class SearchResults(BaseModel):
    items: list[SearchHit]
