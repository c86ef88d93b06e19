"""Document rules: the place (a room the caller may see, or their own agent), type and size
checks, dedupe by SHA-256 per place, and delete with chunks and file.

A room's documents are the room's: every member reads and searches them, editors and the
owner upload and delete them (``rooms.access``). An agent's documents are its owner's.
A document stays readable and deletable by whoever uploaded it.

Uploads are staged on disk in a worker thread; the 415/413 checks run on the staged file,
which is dropped on any refusal. The ingest itself is started by the route after the
commit (a background task), so the worker never looks for a row that is not there yet.
"""

from __future__ import annotations

import asyncio
import re
import uuid
from dataclasses import dataclass
from pathlib import PurePath
from typing import BinaryIO, Literal

from sqlalchemy.exc import IntegrityError

from pantheon.agents.repository import AgentRepository
from pantheon.db.base import utcnow
from pantheon.db.models import Document
from pantheon.db.repository import as_uuid
from pantheon.errors import AppError, TooLarge, not_found
from pantheon.knowledge.formats import FORMATS, DocumentStatus, Format, UnsupportedFormat, detect
from pantheon.knowledge.repository import DocumentRepository
from pantheon.knowledge.storage import DocumentStore, FileTooLarge, StagedFile
from pantheon.rooms.access import Need, require, room_access, room_for
from pantheon.text import clean_text

_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f]")
PlaceKind = Literal["room", "agent"]


class UnsupportedMediaType(AppError):
    """415: the message names the accepted types."""

    status_code = 415
    code = "unsupported_media_type"


@dataclass(frozen=True, slots=True)
class Place:
    """Where documents live: a room (shared by its agents) or an agent."""

    key: str
    room_id: uuid.UUID | None = None
    agent_id: uuid.UUID | None = None


def place_key(kind: PlaceKind, ident: uuid.UUID) -> str:
    """The ``documents.place`` of a room or an agent."""
    return f"{kind}:{ident}"


def clean_filename(raw: str | None) -> str:
    """The base name without control characters, at most 255 characters."""
    name = _UNPRINTABLE.sub("", PurePath(clean_text(raw or "").replace("\\", "/")).name).strip()
    return (name or "upload")[:255]


class DocumentService:
    def __init__(self, repo: DocumentRepository, store: DocumentStore, max_bytes: int) -> None:
        self.repo = repo
        self.store = store
        self.max_bytes = max_bytes

    async def place(
        self, owner_id: uuid.UUID, kind: PlaceKind, ident: str, need: Need = "view"
    ) -> Place:
        """A room the caller may ``need`` (404 unseen, 403 a role too small), or their own
        agent (404 when it is not theirs or does not exist)."""
        session = self.repo.session
        if kind == "room":
            room = (await room_for(session, owner_id, ident, need)).room
            return Place(place_key("room", room.id), room_id=room.id)
        agent = await AgentRepository(session).get(owner_id, ident)
        if agent is None:
            raise not_found("agent", ident)
        return Place(place_key("agent", agent.id), agent_id=agent.id)

    async def upload(
        self, owner_id: uuid.UUID, place: Place, filename: str | None, source: BinaryIO
    ) -> tuple[Document, bool]:
        """The new pending document (``True``), or the existing one with the same bytes."""
        name = clean_filename(filename)
        staged = await self._stage(source)
        try:
            fmt = detect(name, staged.head)
        except UnsupportedFormat as exc:
            await asyncio.to_thread(self.store.discard, staged.path)
            raise UnsupportedMediaType(str(exc)) from None
        existing = await self.repo.in_place(place.key, staged.sha256)
        if existing is None:
            row = self._row(owner_id, place, name, fmt, staged)
            try:
                async with self.repo.session.begin_nested():
                    self.repo.add(row)
            except IntegrityError:  # the same bytes, uploaded concurrently, won the race
                existing = await self.repo.in_place(place.key, staged.sha256)
            else:
                await asyncio.to_thread(self.store.keep, staged, row.id)
                return row, True
        await asyncio.to_thread(self.store.discard, staged.path)
        if existing is None:
            raise RuntimeError("duplicate document vanished during upload")
        return existing, False

    async def _stage(self, source: BinaryIO) -> StagedFile:
        try:
            return await asyncio.to_thread(self.store.stage, source, self.max_bytes)
        except FileTooLarge:
            raise TooLarge(
                f"the file is larger than {self.max_bytes} bytes "
                "(knowledge.max_bytes, PANTHEON_KNOWLEDGE__MAX_BYTES)",
                limit=self.max_bytes,
            ) from None

    @staticmethod
    def _row(
        owner_id: uuid.UUID, place: Place, name: str, fmt: Format, staged: StagedFile
    ) -> Document:
        return Document(
            id=uuid.uuid4(),
            owner_id=owner_id,
            room_id=place.room_id,
            agent_id=place.agent_id,
            place=place.key,
            filename=name,
            format=fmt.value,
            content_type=FORMATS[fmt].content_type,
            bytes=staged.size,
            sha256=staged.sha256,
            status=DocumentStatus.PENDING,
            created_at=utcnow(),
        )

    async def get(self, user_id: uuid.UUID, document_id: str, need: Need = "view") -> Document:
        """The caller's upload, or a document of a room they may ``need``; else 404 (403 for
        a viewer deleting a room's document)."""
        ident = as_uuid(document_id)
        row = None if ident is None else await self.repo.get_any(ident)
        if row is None:
            raise not_found("document", document_id)
        if row.owner_id == user_id:
            return row
        found = (
            None
            if row.room_id is None
            else await room_access(self.repo.session, user_id, row.room_id)
        )
        if found is None:
            raise not_found("document", document_id)
        require(found, need)
        return row

    async def delete(self, user_id: uuid.UUID, document_id: str) -> uuid.UUID:
        """The row and its chunks now; the file too (a later resume would just fail it).
        Returns the id, for the caller to stop its ingest once this is committed."""
        row = await self.get(user_id, document_id, "edit")
        await self.repo.delete(row)
        await asyncio.to_thread(self.store.discard, self.store.path_of(row.id))
        return row.id
