"""Bounded waiting for a condition in tests: poll, never sleep an unbounded time."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


async def until(
    condition: Callable[[], object], attempts: int = 500, every_s: float = 0.01
) -> None:
    """Return once ``condition()`` is true; fail after ``attempts`` polls."""
    for _ in range(attempts):
        if condition():
            return
        await asyncio.sleep(every_s)
    raise AssertionError(f"condition not reached after {attempts * every_s:.1f}s")
