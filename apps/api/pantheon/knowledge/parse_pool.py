"""Parsing in a child process: untrusted files never run parsers inside the server.

pypdf and python-docx are pure Python: in a thread they would hold the GIL and slow the
event loop (and every running turn) for as long as a large file parses. In a child
process they cannot; a file that makes a parser hang is killed at ``timeout_s``, and one
that crashes the interpreter only breaks the child. Either way the document fails with a
reason and the next parse starts a fresh child. One child, started on first use with
the ``spawn`` method (forking a process that runs threads can deadlock) and niced so
turns win the CPU, is shared by every app in the process; it exits with the interpreter.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from pantheon.knowledge.formats import Format
from pantheon.knowledge.parsing import parse_file
from pantheon.knowledge.sections import ParseError, Section

_lock = threading.Lock()
_executor: ProcessPoolExecutor | None = None


def _pool(nice: int) -> ProcessPoolExecutor:
    global _executor
    with _lock:
        if _executor is None:
            context = multiprocessing.get_context("spawn")
            _executor = ProcessPoolExecutor(
                max_workers=1, mp_context=context, initializer=os.nice, initargs=(nice,)
            )
        return _executor


def _discard(executor: ProcessPoolExecutor, *, kill: bool) -> None:
    """Forget ``executor`` (the next parse starts a new child), killing its child if asked."""
    global _executor
    with _lock:
        if _executor is executor:
            _executor = None
    if kill:
        # ProcessPoolExecutor has no public way to stop a busy worker before Python 3.14.
        for process in list(getattr(executor, "_processes", {}).values()):
            process.kill()
    executor.shutdown(wait=False, cancel_futures=True)


async def parse_in_child(
    path: Path, fmt: Format, max_text_chars: int, timeout_s: float, nice: int = 10
) -> list[Section]:
    """``parse_file`` in the child (at ``nice``, when it starts); ``ParseError`` for bad
    files, ``TimeoutError`` past ``timeout_s`` (the child is killed)."""
    executor = _pool(nice)
    loop = asyncio.get_running_loop()
    future = loop.run_in_executor(executor, parse_file, path, fmt, max_text_chars)
    try:
        return await asyncio.wait_for(future, timeout_s)
    except TimeoutError:
        _discard(executor, kill=True)
        raise
    except BrokenProcessPool:
        _discard(executor, kill=False)
        raise ParseError("the parser crashed on this file (it is probably corrupt)") from None
