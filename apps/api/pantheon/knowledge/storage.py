"""Uploaded files on disk under ``<data_dir>/documents``: streamed in, hashed on the way.

An upload is copied block by block (1 MiB) from the request's spooled file to
``incoming/<random>`` in a worker thread while its SHA-256 and size are computed, so a file
is never held whole in memory; past ``max_bytes`` the copy stops and the upload is refused.
The service then either keeps it as ``<document id>`` or drops it (a duplicate).
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from pantheon.knowledge.formats import SNIFF_BYTES

BLOCK = 1024 * 1024


class FileTooLarge(Exception):
    """The upload passed ``max_bytes``; nothing was kept."""


@dataclass(frozen=True, slots=True)
class StagedFile:
    """An upload on disk, not yet a document."""

    path: Path
    size: int
    sha256: str
    head: bytes


class DocumentStore:
    """Where document files live; every method is blocking (call it in a worker thread)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.incoming = root / "incoming"

    def stage(self, source: BinaryIO, max_bytes: int) -> StagedFile:
        """Copy ``source`` to ``incoming/``, hashing it; ``FileTooLarge`` past ``max_bytes``."""
        self.incoming.mkdir(parents=True, exist_ok=True)
        path = self.incoming / uuid.uuid4().hex
        digest, size, head = hashlib.sha256(), 0, b""
        try:
            with path.open("wb") as out:
                while block := source.read(BLOCK):
                    size += len(block)
                    if size > max_bytes:
                        raise FileTooLarge
                    if len(head) < SNIFF_BYTES:
                        head += block[: SNIFF_BYTES - len(head)]
                    digest.update(block)
                    out.write(block)
        except BaseException:
            path.unlink(missing_ok=True)
            raise
        return StagedFile(path, size, digest.hexdigest(), head)

    def path_of(self, document_id: uuid.UUID) -> Path:
        return self.root / str(document_id)

    def keep(self, staged: StagedFile, document_id: uuid.UUID) -> None:
        staged.path.replace(self.path_of(document_id))

    def discard(self, path: Path) -> None:
        path.unlink(missing_ok=True)
