"""B4: sustained orchestrator turns per second on one server process.

``workers`` clients each POST the B3 scenario's turn on their own session, back to back,
for a bounded time. Throughput counts the turns that finished inside the measuring window
(after one T_ideal of ramp-up), so the ramp and the drain do not dilute it. Baseline: the
rate the same closed loop would reach if Pantheon added nothing, ``workers / T_ideal``.
"""

from __future__ import annotations

import asyncio
import time

from pantheon_bench import scenario
from pantheon_bench.b3_orchestrator import timed_turn
from pantheon_bench.client import session
from pantheon_bench.harness import Context
from pantheon_bench.results import BenchResult, Row, fmt, percentile

GOAL = 40.0


async def run(ctx: Context) -> BenchResult:
    server, api = ctx.main_server()
    workers, seconds = ctx.sizes.b4_workers, ctx.sizes.b4_seconds
    ideal = scenario.t_ideal(scale=ctx.sizes.scale)
    sessions = await api.orchestrator_sessions("b4", scenario.AGENTS, ("mgr", "spec"), workers)
    finished: list[tuple[float, float]] = []  # (finish time, turn seconds)
    errors: list[str] = []
    start = time.perf_counter()
    stop_at = start + ideal + seconds

    async with session() as http:

        async def worker(session_id: str) -> None:
            while time.perf_counter() < stop_at:
                try:
                    elapsed, problem = await timed_turn(http, server.url, session_id)
                except Exception as exc:
                    errors.append(repr(exc)[:200])
                    await asyncio.sleep(0.1)
                    continue
                if problem:
                    errors.append(problem)
                finished.append((time.perf_counter(), elapsed))

        await asyncio.wait_for(
            asyncio.gather(*(worker(s) for s in sessions)), timeout=seconds + 20 * ideal + 60
        )
    window = [t for at, t in finished if start + ideal <= at <= stop_at]
    rate = len(window) / seconds
    ideal_rate = workers / ideal
    result = BenchResult("B4", "Sustained orchestrator turns/s", f"{workers} / T_ideal")
    result.rows += [
        Row(f"{workers} workers, {seconds:g} s", "turns/s", fmt(rate, 1), fmt(ideal_rate, 1),
            f"x{fmt(rate / ideal_rate)}", f">= {GOAL:g}/s", rate >= GOAL and not errors),
        Row(f"{workers} workers, {seconds:g} s", "turn p50 / p99",
            f"{fmt(percentile(window, 50), 3)} / {fmt(percentile(window, 99), 3)} s",
            f"{fmt(ideal, 3)} s", "", "", None),
        Row(f"{workers} workers, {seconds:g} s", "errors", str(len(errors)), "", "", "0",
            not errors),
    ]  # fmt: skip
    result.raw.update(turns_s=rate, ideal_turns_s=ideal_rate, turns=len(finished),
                      errors=errors[:5], error_count=len(errors), workers=workers)  # fmt: skip
    if ctx.sizes.quick:
        result.notes.append("quick run: tiny load, scaled delays; the goal applies to make bench")
    return result
