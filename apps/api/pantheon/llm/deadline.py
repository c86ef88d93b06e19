"""The turn's deadline, visible to every LLM call made on its behalf.

The turn runner opens a ``deadline_scope``; the gateway reads ``current_deadline`` so that
no call, and no retry's wait, runs past it. A context variable, because the calls are made
deep inside the engine's modes and concurrent specialists (tasks inherit the context).
Times are ``loop.time()`` values (monotonic seconds).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_deadline: ContextVar[float | None] = ContextVar("pantheon_turn_deadline", default=None)


def current_deadline() -> float | None:
    """The innermost deadline in force, or ``None`` when there is none."""
    return _deadline.get()


@contextmanager
def deadline_scope(seconds: float) -> Iterator[float]:
    """Within this block nothing may run past ``seconds`` from now (nor an outer deadline)."""
    when = asyncio.get_running_loop().time() + seconds
    outer = _deadline.get()
    token = _deadline.set(when if outer is None else min(outer, when))
    try:
        yield when
    finally:
        _deadline.reset(token)
