"""B3: an orchestrator turn against its critical path, alone, 50 at once, and sequential.

The scenario (``scenario``): 3 rounds x 3 specialists, 200 ms per call, a 1.2 s synthesis;
``T_ideal`` is the chain of calls the engine cannot overlap. A client POSTs the turn and
waits for the JSON answer; efficiency = T_ideal / T (p50). The comparison runs the same
turn on a server with ``PANTHEON_ORCHESTRATOR__SEQUENTIAL_SPECIALISTS=true``.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import aiohttp

from pantheon_bench import scenario
from pantheon_bench.client import Api, post_json, session
from pantheon_bench.harness import Context
from pantheon_bench.results import BenchResult, Row, fmt, percentile

GOAL = 0.97


async def timed_turn(http: aiohttp.ClientSession, base: str, session_id: str) -> tuple[float, str]:
    """(seconds, problem or "") of one JSON turn that must complete all 3 rounds."""
    start = time.perf_counter()
    turn: dict[str, Any] = await post_json(
        http, f"{base}/v1/sessions/{session_id}/turns", {"message": "Plan a launch."}
    )
    elapsed = time.perf_counter() - start
    problem = ""
    if turn.get("status") != "completed" or turn.get("rounds") != scenario.ROUNDS:
        problem = f"status={turn.get('status')} rounds={turn.get('rounds')}"
    return elapsed, problem


async def _wave(http: aiohttp.ClientSession, base: str, sessions: list[str]) -> list[float]:
    done = await asyncio.gather(*(timed_turn(http, base, s) for s in sessions))
    problems = [p for _, p in done if p]
    if problems:
        raise RuntimeError(f"{len(problems)} turn(s) went wrong: {problems[0]}")
    return [t for t, _ in done]


def _row(case: str, times: list[float], ideal: float) -> Row:
    t50 = percentile(times, 50)
    eff = ideal / t50
    return Row(case, "efficiency T_ideal/T", fmt(eff, 3), f"T_ideal {fmt(ideal, 3)} s",
               f"T p50 {fmt(t50, 3)} s", f">= {GOAL}", eff >= GOAL)  # fmt: skip


async def run(ctx: Context) -> BenchResult:
    server, api = ctx.main_server()
    scale = ctx.sizes.scale
    ideal, ideal_seq = scenario.t_ideal(scale=scale), scenario.t_ideal(sequential=True, scale=scale)
    result = BenchResult("B3", "Orchestrator turn vs its critical path", f"T_ideal {ideal:.3f} s")
    models = ("mgr", "spec")
    wide = ctx.sizes.b3_wide
    sessions = await api.orchestrator_sessions("b3", scenario.AGENTS, models, wide)
    singles = 1 if ctx.sizes.quick else 3
    async with session() as http:
        alone = [t for _ in range(singles) for t in await _wave(http, server.url, sessions[:1])]
        many = await _wave(http, server.url, sessions)
        seq_server = ctx.start_server(
            "pantheon-sequential", PANTHEON_ORCHESTRATOR__SEQUENTIAL_SPECIALISTS="true"
        )
        try:
            seq_api = Api(http, seq_server.url)
            seq_sessions = await seq_api.orchestrator_sessions("b3s", scenario.AGENTS, models, 1)
            seq = [
                t for _ in range(singles) for t in await _wave(http, seq_server.url, seq_sessions)
            ]
        finally:
            seq_server.stop()
    result.rows += [_row("1 turn", alone, ideal), _row(f"{wide} concurrent", many, ideal)]
    seq50 = percentile(seq, 50)
    result.rows.append(
        Row("sequential specialists, 1 turn", "T p50", f"{fmt(seq50, 3)} s",
            f"T_ideal seq {fmt(ideal_seq, 3)} s", f"eff {fmt(ideal_seq / seq50, 3)}",
            "", None)
    )  # fmt: skip
    result.rows.append(
        Row("concurrent vs sequential", "speed-up", f"x{fmt(seq50 / percentile(alone, 50))}",
            f"x{fmt(ideal_seq / ideal)} ideal", "", "", None)
    )  # fmt: skip
    result.raw.update(
        t_ideal_s=ideal, t_ideal_sequential_s=ideal_seq, alone_s=alone,
        concurrent_p50_s=percentile(many, 50), concurrent_p99_s=percentile(many, 99),
        concurrent_n=len(many), sequential_s=seq,
    )  # fmt: skip
    if ctx.sizes.quick:
        result.notes.append("quick run: the scenario's delays are scaled by 0.1")
    return result
