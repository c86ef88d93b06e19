"""B7: injected upstream faults (10% 429 with Retry-After 0.2 s, 5% 503) on every call.

The B3 scenario on the ``mgr-faults`` / ``spec-faults`` models. Every turn must complete
(no agent failed): the gateway retries 429/503 with backoff, honouring Retry-After. The
mock's counters tell how many errors it injected, i.e. how many retries were needed.
Baseline: the same number of turns on the fault-free models.
"""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp

from pantheon.settings import Settings
from pantheon_bench import scenario
from pantheon_bench.b3_orchestrator import timed_turn
from pantheon_bench.client import session
from pantheon_bench.harness import Context
from pantheon_bench.results import BenchResult, Row, fmt, percentile


async def _mock_stats(http: aiohttp.ClientSession, url: str) -> dict[str, Any]:
    async with http.get(f"{url}/_mock/stats") as response:
        data: dict[str, Any] = await response.json()
        return data


async def _batch(
    http: aiohttp.ClientSession, base: str, sessions: list[str], turns: int
) -> list[tuple[float, str]]:
    """``turns`` turns, one running per session at a time."""
    done: list[tuple[float, str]] = []
    for first in range(0, turns, len(sessions)):
        count = min(len(sessions), turns - first)
        done += await asyncio.gather(*(timed_turn(http, base, s) for s in sessions[:count]))
    return done


async def run(ctx: Context) -> BenchResult:
    server, api = ctx.main_server()
    turns = ctx.sizes.b7_turns
    width = min(10, turns)
    faulty = await api.orchestrator_sessions(
        "b7f", scenario.FAULT_AGENTS, ("mgr-faults", "spec-faults"), width
    )
    clean = await api.orchestrator_sessions("b7c", scenario.AGENTS, ("mgr", "spec"), width)
    async with session() as http:
        base = await _batch(http, server.url, clean, turns)
        before = await _mock_stats(http, ctx.mock.url)
        ours = await _batch(http, server.url, faulty, turns)
        after = await _mock_stats(http, ctx.mock.url)
    injected = {k: after.get(k, 0) - before.get(k, 0) for k in ("injected_429", "injected_503")}
    requests = after.get("requests", 0) - before.get("requests", 0)
    ok = sum(not problem for _, problem in ours)
    t50, b50 = percentile([t for t, _ in ours], 50), percentile([t for t, _ in base], 50)
    result = BenchResult("B7", "Upstream faults: 10% 429 + 5% 503", "same turns, no faults")
    result.rows += [
        Row(f"{turns} turns", "turns completed", f"{ok}/{turns}",
            f"{sum(not p for _, p in base)}/{turns}", "", "100%", ok == turns),
        Row(f"{turns} turns", "retries (injected errors)",
            f"{injected['injected_429']} x 429 + {injected['injected_503']} x 503",
            "", f"of {requests} upstream requests", "", None),
        Row(f"{turns} turns", "turn p50", f"{fmt(t50, 3)} s", f"{fmt(b50, 3)} s",
            f"+{fmt(t50 - b50, 3)} s", "", None),
    ]  # fmt: skip
    result.raw.update(turns=turns, completed=ok, requests=requests, **injected,
                      problems=[p for _, p in ours if p][:5])  # fmt: skip
    attempts = Settings().llm.max_attempts
    per_call = 0.15**attempts
    result.notes.append(
        f"With 15% of attempts failing and {attempts} attempts per call, a call still fails "
        f"with probability 0.15^{attempts} = {per_call:.1e}; a 15-call turn then ends "
        f"degraded about {100 * (1 - (1 - per_call) ** 15):.3f}% of the time."
    )
    return result
