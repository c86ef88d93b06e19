"""Server CPU per call, read from /proc, while a few clients call in a closed loop: the
measure of B11 (wall time is noise on a shared machine, CPU time much less so)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import aiohttp

from pantheon_bench.client import session, stream_turn
from pantheon_bench.procs import cpu_seconds

CONCURRENCY = 4  # clients, one session each

Turn = Callable[[aiohttp.ClientSession, str], Awaitable[None]]


async def cpu_ms_per_call(pid: int, sessions: list[str], calls: int, turn: Turn) -> float:
    """Server CPU ms per call of ``turn``: ``calls`` of them, one client per session."""
    per_client = max(1, calls // len(sessions))
    async with session() as http:
        before = cpu_seconds([pid])
        await asyncio.gather(*(_loop(http, s, per_client, turn) for s in sessions))
        after = cpu_seconds([pid])
    return 1000 * (after - before) / (per_client * len(sessions))


async def _loop(http: aiohttp.ClientSession, session_id: str, n: int, turn: Turn) -> None:
    for _ in range(n):
        await turn(http, session_id)


def streamed_turn(base: str, deltas: int) -> Turn:
    """A streamed one-agent turn that must relay all ``deltas`` and complete."""

    async def turn(http: aiohttp.ClientSession, session_id: str) -> None:
        seen = await stream_turn(http, base, session_id, "hello")
        if seen.deltas != deltas or seen.status != "completed":
            raise RuntimeError(f"streamed turn: {seen.deltas} of {deltas} deltas, {seen.status}")

    return turn
