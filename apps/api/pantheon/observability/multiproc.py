"""Metrics under ``pantheon serve --workers N``: prometheus-client's multiprocess mode.

The supervisor makes a fresh directory per serve and names it in
``PROMETHEUS_MULTIPROC_DIR`` before it spawns the workers, which inherit it: each worker
writes its values to its own files there, and any worker's ``/metrics`` sums them all.
A worker that exits has its live gauges' files removed (``worker_exited``); its counters
stay, so totals never go back. The directory is removed when the serve ends.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

from prometheus_client.multiprocess import mark_process_dead

from pantheon.observability.metrics import MULTIPROC_ENV


@contextmanager
def multiprocess_metrics() -> Iterator[str]:
    """A fresh metrics directory for the workers started inside the block; its path."""
    directory = tempfile.mkdtemp(prefix="pantheon-metrics-")
    previous = os.environ.get(MULTIPROC_ENV)
    os.environ[MULTIPROC_ENV] = directory
    try:
        yield directory
    finally:
        if previous is None:
            os.environ.pop(MULTIPROC_ENV, None)
        else:
            os.environ[MULTIPROC_ENV] = previous
        shutil.rmtree(directory, ignore_errors=True)


def worker_exited(pid: int) -> None:
    """Forget a dead worker's live gauges (its turns and streams are gone with it)."""
    directory = os.environ.get(MULTIPROC_ENV)
    if directory:
        mark_process_dead(pid, directory)  # type: ignore[no-untyped-call]
