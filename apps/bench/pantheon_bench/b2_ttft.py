"""B2: time to first token added, as a client sees it, at 1 and 100 concurrent streams.

Pantheon: ``POST /v1/sessions/{id}/turns`` with ``Accept: text/event-stream`` on a
standalone agent whose model is the mock's ``ttft50-itl5-n20``; the clock runs from the
request being sent to the first ``delta`` event. Baseline: the same streaming request
sent straight to the mock, until its first content chunk. Waves of the two alternate.
Also checks that tokens are relayed one by one: each turn has exactly as many ``delta``
events as the upstream sent tokens.
"""

from __future__ import annotations

import asyncio
import time

import aiohttp

from pantheon_bench import scenario
from pantheon_bench.client import session, stream_turn
from pantheon_bench.harness import Context
from pantheon_bench.procs import cpu_seconds
from pantheon_bench.results import BenchResult, Row, fmt, percentile

GOAL_P50_MS, GOAL_P99_MS = 3.0, 15.0  # one stream at a time
BURST, GOAL_BURST_P99_MS = 100, 100.0  # issue 28: a burst of 100 turns, p99 added <= 100 ms


def _goals(level: int) -> tuple[float | None, float]:
    """The added-TTFT goals (p50, p99) at ``level`` concurrent turns: a burst has no p50
    goal."""
    return (None, GOAL_BURST_P99_MS) if level >= BURST else (GOAL_P50_MS, GOAL_P99_MS)


async def _direct_ttft(http: aiohttp.ClientSession, url: str) -> float:
    body = {"model": scenario.ALIASES["ttft"], "stream": True,
            "stream_options": {"include_usage": True},
            "messages": [{"role": "user", "content": "hello"}]}  # fmt: skip
    start = time.perf_counter()
    first: float | None = None
    async with http.post(url, json=body) as response:
        async for line in response.content:
            if first is None and b'"content":"' in line and b'"content":""' not in line:
                first = time.perf_counter() - start
    if first is None:
        raise RuntimeError("the mock sent no content")
    return first


async def ttft_wave(
    http: aiohttp.ClientSession, base: str, sessions: list[str], message: str
) -> tuple[list[float], int]:
    """One streamed turn on each session at once: the TTFTs seen, and how many turns did
    not relay every token as its own delta or did not complete."""
    turns = await asyncio.gather(*(stream_turn(http, base, s, message) for s in sessions))
    bad = sum(t.deltas != scenario.TTFT_TOKENS or t.status != "completed" for t in turns)
    return [t.ttft_s for t in turns if t.ttft_s is not None], bad


async def run(ctx: Context) -> BenchResult:
    server, api = ctx.main_server()
    result = BenchResult("B2", "Time to first token added (SSE, client side)", "mock directly")
    levels = ctx.sizes.b2_levels
    sessions = await api.standalone_sessions("ttft_agent", "ttft", max(levels))
    direct_url = f"{ctx.mock.url}/v1/chat/completions"
    async with session() as http:
        for level in levels:
            waves = max(1, max(ctx.sizes.b2_turns, 3 * level) // level)
            ours: list[float] = []
            base: list[float] = []
            bad_relay = 0
            cpu_s = wall_s = 0.0
            for wave in range(waves):
                base += await asyncio.gather(
                    *(_direct_ttft(http, direct_url) for _ in range(level))
                )
                cpu_before, started = cpu_seconds([server.pid]), time.perf_counter()
                ttfts, bad = await ttft_wave(http, server.url, sessions[:level], f"hi {wave}")
                cpu_s += cpu_seconds([server.pid]) - cpu_before
                wall_s += time.perf_counter() - started
                ours += ttfts
                bad_relay += bad
            p50, p99 = percentile(ours, 50) * 1e3, percentile(ours, 99) * 1e3
            b50, b99 = percentile(base, 50) * 1e3, percentile(base, 99) * 1e3
            result.raw[f"c{level}"] = {"pantheon_p50_ms": p50, "pantheon_p99_ms": p99,
                                       "direct_p50_ms": b50, "direct_p99_ms": b99,
                                       "turns": len(ours), "bad_relay": bad_relay,
                                       "server_cpu_ms_per_turn": cpu_s * 1e3 / len(ours),
                                       "server_cores_busy": cpu_s / wall_s}  # fmt: skip
            case = f"c={level}"
            goal50, goal99 = _goals(level)
            result.rows += [
                Row(case, "p50 TTFT", f"{fmt(p50)} ms", f"{fmt(b50)} ms", f"+{fmt(p50 - b50)} ms",
                    "" if goal50 is None else f"added <= {goal50:g} ms",
                    None if goal50 is None else p50 - b50 <= goal50),
                Row(case, "p99 TTFT", f"{fmt(p99)} ms", f"{fmt(b99)} ms", f"+{fmt(p99 - b99)} ms",
                    f"added <= {goal99:g} ms", p99 - b99 <= goal99),
                Row(case, "turns relaying each token", f"{len(ours) - bad_relay}/{len(ours)}",
                    f"{scenario.TTFT_TOKENS} tokens", "", "all", bad_relay == 0),
                Row(case, "server CPU per turn, cores busy", f"{fmt(cpu_s * 1e3 / len(ours))} ms",
                    "", f"{fmt(cpu_s / wall_s)} cores"),
            ]  # fmt: skip
    result.notes.append(
        "TTFT through Pantheon includes the turn's preflight (session, room and history "
        "read from the database) and the first SSE events before the first delta."
    )
    result.notes.append(
        "Server CPU per turn and cores busy: the server process's CPU time across the "
        "waves of streamed turns, per turn and per second of those waves. One process runs "
        "one event loop: near 1 core busy, a burst's turns queue for it, and the last first "
        "token of a burst of N comes after about N x the CPU per turn."
    )
    return result
