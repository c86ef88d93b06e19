"""Keep the garbage collector's full passes off what the server built to start.

Startup leaves ~250k long-lived objects (routes, schemas, SQLAlchemy metadata, SDKs).
CPython's oldest generation walks all of them on every full collection: ~180 ms of
CPU on the event loop each, a pause for every stream in flight. Freezing them when
serving begins moves them out of the collector's sight (~7 ms per full collection then,
docs/operations.md); they live as long as the process anyway.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def startup_objects_frozen() -> Iterator[None]:
    """While serving, every object alive at its start is frozen; unfrozen at shutdown, so
    an app built and stopped in a longer-lived process (tests) leaves nothing pinned."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
