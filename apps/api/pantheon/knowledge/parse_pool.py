"""Parsing in a child process: untrusted files never run parsers inside the server.

pypdf and python-docx are pure Python: in a thread they would hold the GIL and slow the
event loop (and every running turn) for as long as a large file parses. In a child
process they cannot, and whatever a file expands to (text, repeated headings, chunks)
stays in the child under its limits (``parse_child``): the server receives only the
bounded chunks. A file that makes a parser hang is killed at ``timeout_s``, and one that
crashes the interpreter only breaks the child; either way the document fails with a
reason and the next parse starts a fresh child. A parse whose caller gives up (its
document was deleted, its ingest deadline passed) is killed the same way, so the next file
never waits for work nobody wants. Each app owns one ``ParsePool`` (one
child, started on first use with ``spawn``: forking a process that runs threads can
deadlock) and closes it on shutdown, which kills the child.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from pantheon.knowledge import parse_child
from pantheon.knowledge.formats import Format
from pantheon.knowledge.parsing import ParsedDocument, ParseLimits, parse_document
from pantheon.knowledge.sections import ParseError
from pantheon.settings import KnowledgeSettings

JOIN_S = 5.0  # waiting for a killed child to be reaped


class ParsePool:
    """The app's parser child: ``parse`` a stored file into chunks, ``close`` on shutdown."""

    def __init__(self, settings: KnowledgeSettings) -> None:
        self.limits = ParseLimits(
            max_text_chars=settings.max_text_chars,
            chunk_chars=settings.chunk_chars,
            chunk_overlap=settings.chunk_overlap,
            max_memory_bytes=settings.parse_max_memory_bytes,
        )
        self.timeout_s = settings.parse_timeout_s
        self.nice = settings.ingest_nice
        # What the child runs on each file: module-level, so ``spawn`` pickles it by name.
        self.function: Callable[[Path, Format, ParseLimits], ParsedDocument] = parse_document
        self._executor: ProcessPoolExecutor | None = None
        self._closed = False

    def pids(self) -> list[int]:
        """The running child's process id (empty before the first parse and after close)."""
        processes = getattr(self._executor, "_processes", None) or {}
        return [p.pid for p in tuple(processes.values()) if p.pid is not None]

    async def parse(self, path: Path, fmt: Format) -> ParsedDocument:
        """The file's chunks; ``ParseError`` for bad files, ``TimeoutError`` past the
        timeout. Past the timeout or when the caller is cancelled the child is killed."""
        executor = self._pool()
        loop = asyncio.get_running_loop()
        started = loop.time()
        future = loop.run_in_executor(
            executor, parse_child.run, self.timeout_s, self.function, path, fmt, self.limits
        )
        try:
            return await asyncio.wait_for(future, self.timeout_s)
        except (TimeoutError, asyncio.CancelledError):
            # Shielded: a second cancel must not leave the child running or unreaped.
            await asyncio.shield(self._discard(executor))
            raise
        except BrokenProcessPool:
            await self._discard(executor)
            if loop.time() - started >= self.timeout_s:  # the child stopped at its deadline
                raise TimeoutError from None
            raise ParseError("the parser crashed on this file (it is probably corrupt)") from None

    async def close(self) -> None:
        """Kill the child; a parse under way is abandoned (its document stays pending)."""
        self._closed = True
        if self._executor is not None:
            await self._discard(self._executor)

    def _pool(self) -> ProcessPoolExecutor:
        if self._closed:
            raise RuntimeError("the parse pool is closed (the server is shutting down)")
        if self._executor is None:
            self._executor = ProcessPoolExecutor(
                max_workers=1,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=parse_child.start,
                initargs=(self.nice, os.getpid(), self.limits.max_memory_bytes),
            )
        return self._executor

    async def _discard(self, executor: ProcessPoolExecutor) -> None:
        """Forget ``executor`` (the next parse starts a new child) and kill its child."""
        if self._executor is executor:
            self._executor = None
        # ProcessPoolExecutor has no public way to stop a busy worker before Python 3.14.
        processes = list((getattr(executor, "_processes", None) or {}).values())
        for process in processes:
            process.kill()
        executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            await asyncio.to_thread(process.join, JOIN_S)
