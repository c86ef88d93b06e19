"""Bounded closed-loop load: ``concurrency`` workers run ``total`` calls, timing each one.

Every loop here stops at a count and at a deadline, whichever comes first, so a stuck
server cannot hang ``make bench``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field


@dataclass
class LoadRun:
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    elapsed_s: float = 0.0

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.elapsed_s if self.elapsed_s else 0.0


async def closed_loop(
    call: Callable[[int], Awaitable[object]],
    *,
    concurrency: int,
    total: int,
    deadline_s: float,
) -> LoadRun:
    """Run ``call(worker)`` ``total`` times with ``concurrency`` in flight, at most
    ``deadline_s`` seconds (workers stop taking new calls after it)."""
    run = LoadRun()
    issued = 0
    start = time.perf_counter()
    stop_at = start + deadline_s

    async def worker(index: int) -> None:
        nonlocal issued
        while issued < total and time.perf_counter() < stop_at:
            issued += 1
            began = time.perf_counter()
            try:
                await call(index)
            except Exception as exc:
                run.errors.append(repr(exc)[:200])
                continue
            run.latencies.append(time.perf_counter() - began)

    await asyncio.gather(*(worker(i) for i in range(concurrency)))
    run.elapsed_s = time.perf_counter() - start
    return run
