"""An embedder that holds chosen passages until released: a stand-in for a slow ingest."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from pantheon.knowledge.embedders.base import Vectors
from pantheon.knowledge.embedders.hashing import HashingEmbedder


class GatedEmbedder:
    """Hashing vectors; a batch holding ``marker`` waits for ``release`` (counted, and
    counted again if its wait is cancelled)."""

    def __init__(self, marker: str) -> None:
        self.inner = HashingEmbedder()
        self.ident, self.dim = self.inner.ident, self.inner.dim
        self.marker = marker
        self.waiting = asyncio.Event()
        self.release = asyncio.Event()
        self.gated_batches = 0
        self.cancelled = 0

    async def embed_passages(self, texts: Sequence[str]) -> Vectors:
        if any(self.marker in text for text in texts):
            self.gated_batches += 1
            self.waiting.set()
            try:
                await self.release.wait()
            except asyncio.CancelledError:
                self.cancelled += 1
                raise
        return await self.inner.embed_passages(texts)

    async def embed_query(self, text: str) -> Vectors:
        return await self.inner.embed_query(text)
