"""Per-place vector matrices kept in memory between searches, checked on every use.

Loading 10k float32 blobs from the database on every search costs far more than the
cosine itself (K3). A place's matrix (for the current embedder) is kept
with a fingerprint of what it was built from: the place's ready documents' count, chunk
total and latest ``updated_at`` (``pantheon knowledge reindex`` touches ``updated_at`` of
the documents it re-embeds). Every search reads the fingerprint (one aggregate query over
documents, not chunks) and reloads the matrix when it changed, so new, deleted and
re-embedded documents are seen at once, also when another process changed them.
Entries are evicted least recently used past ``max_bytes``.
"""

from __future__ import annotations

import uuid
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from pantheon.knowledge.embedders.base import Vectors

Key = tuple[str, str]  # place, embedder ident


@dataclass(frozen=True, slots=True)
class PlaceVectors:
    fingerprint: tuple[Any, ...]
    ids: list[uuid.UUID]
    matrix: Vectors

    @property
    def nbytes(self) -> int:
        return int(self.matrix.nbytes) + 16 * len(self.ids)


class VectorCache:
    """An LRU map of ``Key`` -> ``PlaceVectors`` bounded by ``max_bytes``."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._entries: OrderedDict[Key, PlaceVectors] = OrderedDict()
        self._bytes = 0

    def get(self, key: Key, fingerprint: tuple[Any, ...]) -> PlaceVectors | None:
        entry = self._entries.get(key)
        if entry is None or entry.fingerprint != fingerprint:
            return None
        self._entries.move_to_end(key)
        return entry

    def put(self, key: Key, entry: PlaceVectors) -> None:
        old = self._entries.pop(key, None)
        if old is not None:
            self._bytes -= old.nbytes
        if entry.nbytes > self.max_bytes:
            return
        self._entries[key] = entry
        self._bytes += entry.nbytes
        while self._bytes > self.max_bytes:
            _, evicted = self._entries.popitem(last=False)
            self._bytes -= evicted.nbytes
