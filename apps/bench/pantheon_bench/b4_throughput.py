"""B4: sustained orchestrator turns per second on one server process.

``workers`` clients each POST the B3 scenario's turn on their own session, back to back,
for a bounded time. Throughput counts the turns that finished inside the measuring window
(after one T_ideal of ramp-up), so the ramp and the drain do not dilute it. Baseline: the
rate the same closed loop would reach if Pantheon added nothing, ``workers / T_ideal``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import aiohttp

from pantheon_bench import scenario
from pantheon_bench.b3_orchestrator import timed_turn
from pantheon_bench.client import session
from pantheon_bench.harness import Context
from pantheon_bench.results import BenchResult, Row, fmt, percentile

GOAL = 40.0


@dataclass
class Sustained:
    """Turns finished by a closed loop: (finish time, turn seconds), errors, the window."""

    window_start: float
    window_end: float
    finished: list[tuple[float, float]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def window(self) -> list[float]:
        """Seconds of each turn that finished inside the measuring window."""
        return [t for at, t in self.finished if self.window_start <= at <= self.window_end]

    @property
    def rate(self) -> float:
        return len(self.window) / (self.window_end - self.window_start)


async def sustained_turns(
    base_url: str,
    sessions: list[str],
    *,
    ramp_s: float,
    seconds: float,
    at_window_edges: Callable[[], None] | None = None,
) -> Sustained:
    """One client per session posting turns back to back for ``ramp_s + seconds``;
    ``at_window_edges`` is called when the measuring window opens and when it closes
    (B9 reads the server's CPU time there). Waits for the turns in flight to finish."""
    start = time.perf_counter()
    run = Sustained(start + ramp_s, start + ramp_s + seconds)

    async def worker(http: aiohttp.ClientSession, session_id: str) -> None:
        while time.perf_counter() < run.window_end:
            try:
                elapsed, problem = await timed_turn(http, base_url, session_id)
            except Exception as exc:
                run.errors.append(repr(exc)[:200])
                await asyncio.sleep(0.1)
                continue
            if problem:
                run.errors.append(problem)
            run.finished.append((time.perf_counter(), elapsed))

    async def edges() -> None:
        if at_window_edges is None:
            return
        for edge in (run.window_start, run.window_end):
            await asyncio.sleep(max(0.0, edge - time.perf_counter()))
            at_window_edges()

    async with session() as http:
        await asyncio.wait_for(
            asyncio.gather(edges(), *(worker(http, s) for s in sessions)),
            timeout=seconds + 20 * ramp_s + 60,
        )
    return run


async def run(ctx: Context) -> BenchResult:
    server, api = ctx.main_server()
    workers, seconds = ctx.sizes.b4_workers, ctx.sizes.b4_seconds
    ideal = scenario.t_ideal(scale=ctx.sizes.scale)
    sessions = await api.orchestrator_sessions("b4", scenario.AGENTS, ("mgr", "spec"), workers)
    load = await sustained_turns(server.url, sessions, ramp_s=ideal, seconds=seconds)
    window, errors = load.window, load.errors
    rate = load.rate
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
    result.raw.update(turns_s=rate, ideal_turns_s=ideal_rate, turns=len(load.finished),
                      errors=errors[:5], error_count=len(errors), workers=workers)  # fmt: skip
    if ctx.sizes.quick:
        result.notes.append("quick run: tiny load, scaled delays; the goal applies to make bench")
    return result
