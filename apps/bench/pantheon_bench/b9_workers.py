"""B9: one worker process against two, on PostgreSQL and Redis, as ratios in one run.

``pantheon serve`` (one process) and ``pantheon serve --workers 2``, each on its own
throwaway PostgreSQL database and a private ``redis-server`` started here, take the same
load one after the other: B4's closed loop of orchestrator turns, then B2's streamed
turns at one and at N concurrent streams. The server's CPU time (user + system of the
process and every process below it, from /proc) is read when B4's measuring window opens
and closes and divided by the turns finished inside it: issue 28's goal is 35 ms per
turn for one worker on PostgreSQL + Redis. Skipped, with the reason, when PostgreSQL or
Redis is missing.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg

from pantheon.db.migrations import upgrade
from pantheon_bench import scenario
from pantheon_bench.b2_ttft import ttft_wave
from pantheon_bench.b4_throughput import GOAL as B4_GOAL
from pantheon_bench.b4_throughput import sustained_turns
from pantheon_bench.b6_recording import PG_DSN, throwaway_postgres
from pantheon_bench.client import Api, session
from pantheon_bench.harness import Context
from pantheon_bench.procs import Child, cpu_seconds, descendants, free_port, start_process
from pantheon_bench.results import BenchResult, Row, fmt, percentile

GOAL_CPU_MS = 35.0  # server CPU per B4 turn, one worker, PostgreSQL + Redis (issue 28)
READY_S = 60.0


class Unavailable(Exception):
    """Something B9 needs (PostgreSQL, Redis) is not on this machine."""


@dataclass
class Measured:
    """What one server configuration did under the load."""

    workers: int
    turns_s: float = 0.0
    turn_p50_s: float = float("nan")
    cpu_ms_per_turn: float = float("nan")
    cores_busy: float = 0.0  # server CPU seconds per second of the window
    processes: int = 0
    ttft_p50_ms: dict[int, float] = field(default_factory=dict)
    ttft_p99_ms: dict[int, float] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    bad_relay: int = 0


async def check_postgres() -> None:
    try:
        connection = await asyncpg.connect(PG_DSN, timeout=5)
    except (OSError, asyncpg.PostgresError) as exc:
        raise Unavailable(f"PostgreSQL not reachable at {PG_DSN} ({exc})") from exc
    await connection.close()


@contextlib.asynccontextmanager
async def private_redis(workdir: Path) -> AsyncIterator[str]:
    """A private redis-server on a free port, no persistence, stopped at the end."""
    binary = shutil.which("redis-server") or shutil.which("redis-server", path="/usr/sbin:/usr/bin")
    if binary is None:
        raise Unavailable("redis-server not found (Debian: apt-get install redis-server)")
    port = free_port()
    argv = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
            "--appendonly", "no", "--dir", str(workdir)]  # fmt: skip
    child = await asyncio.to_thread(start_process, "b9-redis", argv, port)
    try:
        yield f"redis://127.0.0.1:{port}"
    finally:
        await asyncio.to_thread(child.stop)


def _stop_tree(child: Child) -> None:
    """Stop the server, then kill whatever of its workers outlived the grace period."""
    pids = descendants(child.pid)[1:]
    child.stop(grace_s=40.0)
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


async def _wait_ready(http: aiohttp.ClientSession, url: str) -> None:
    deadline = time.monotonic() + READY_S
    while time.monotonic() < deadline:
        with contextlib.suppress(aiohttp.ClientError):
            async with http.get(f"{url}/ready") as response:
                if response.status == 200:
                    return
        await asyncio.sleep(0.2)
    raise RuntimeError(f"{url}/ready did not answer 200 within {READY_S:g} s")


async def _ttft(base: str, sessions: list[str], levels: tuple[int, ...], turns: int,
                out: Measured) -> None:  # fmt: skip
    async with session() as http:
        for level in levels:
            ttfts: list[float] = []
            for wave in range(max(1, max(turns, 3 * level) // level)):
                got, bad = await ttft_wave(http, base, sessions[:level], f"hi {wave}")
                ttfts += got
                out.bad_relay += bad
            out.ttft_p50_ms[level] = percentile(ttfts, 50) * 1e3
            out.ttft_p99_ms[level] = percentile(ttfts, 99) * 1e3


async def _measure(ctx: Context, workers: int, database: str, redis: str) -> Measured:
    """Start ``pantheon serve`` with ``workers`` processes, load it, stop it."""
    sizes, out = ctx.sizes, Measured(workers)
    name = f"b9-{workers}-workers"
    env = ctx.server_env(name, PANTHEON_DATABASE_URL=database, PANTHEON_REDIS_URL=redis)
    port = free_port()
    argv = [sys.executable, "-m", "pantheon", "serve", "--port", str(port)]
    argv += ["--workers", str(workers)] if workers > 1 else []
    child = await asyncio.to_thread(start_process, name, argv, port, env)
    try:
        async with session() as http:
            await _wait_ready(http, child.url)
            api = Api(http, child.url)
            orchestrated = await api.orchestrator_sessions(
                "b9", scenario.AGENTS, ("mgr", "spec"), sizes.b9_clients
            )
            streamed = await api.standalone_sessions(
                "ttft_agent", "ttft", max(sizes.b9_ttft_levels)
            )
        edges: list[tuple[float, int]] = []

        def read_cpu() -> None:
            pids = descendants(child.pid)
            edges.append((cpu_seconds(pids), len(pids)))

        load = await sustained_turns(
            child.url, orchestrated, ramp_s=scenario.t_ideal(scale=sizes.scale),
            seconds=sizes.b9_seconds, at_window_edges=read_cpu,
        )  # fmt: skip
        window = load.window
        cpu_s = edges[1][0] - edges[0][0]
        out.turns_s, out.turn_p50_s, out.errors = load.rate, percentile(window, 50), load.errors
        out.cpu_ms_per_turn = cpu_s * 1e3 / len(window) if window else float("nan")
        out.cores_busy, out.processes = cpu_s / sizes.b9_seconds, edges[1][1]
        await _ttft(child.url, streamed, sizes.b9_ttft_levels, sizes.b9_ttft_turns, out)
    finally:
        await asyncio.to_thread(_stop_tree, child)
    return out


def _ratio(new: float, old: float) -> str:
    return f"x{fmt(new / old)}" if old else "n/a"


def _rows(one: Measured, two: Measured, clients: int, seconds: float) -> list[Row]:
    load = f"{clients} clients, {seconds:g} s"
    rows = [
        Row(load, "turns/s", fmt(two.turns_s, 1), fmt(one.turns_s, 1),
            _ratio(two.turns_s, one.turns_s), f">= {B4_GOAL:g}/s (B4)", two.turns_s >= B4_GOAL),
        Row(load, "turn p50", f"{fmt(two.turn_p50_s, 3)} s", f"{fmt(one.turn_p50_s, 3)} s",
            _ratio(two.turn_p50_s, one.turn_p50_s), "", None),
        Row(load, "server CPU cores busy", fmt(two.cores_busy), fmt(one.cores_busy),
            _ratio(two.cores_busy, one.cores_busy), "", None),
        Row("1 worker", "server CPU per turn", f"{fmt(one.cpu_ms_per_turn, 1)} ms", "", "",
            f"<= {GOAL_CPU_MS:g} ms", one.cpu_ms_per_turn <= GOAL_CPU_MS),
        Row("2 workers", "server CPU per turn", f"{fmt(two.cpu_ms_per_turn, 1)} ms",
            f"{fmt(one.cpu_ms_per_turn, 1)} ms", _ratio(two.cpu_ms_per_turn, one.cpu_ms_per_turn),
            "", None),
    ]  # fmt: skip
    for level in one.ttft_p50_ms:
        a, b = one.ttft_p50_ms[level], two.ttft_p50_ms[level]
        rows.append(Row(f"c={level}", "p50 TTFT", f"{fmt(b)} ms", f"{fmt(a)} ms", _ratio(b, a)))
        a, b = one.ttft_p99_ms[level], two.ttft_p99_ms[level]
        rows.append(Row(f"c={level}", "p99 TTFT", f"{fmt(b)} ms", f"{fmt(a)} ms", _ratio(b, a)))
    errors = len(one.errors) + len(two.errors) + one.bad_relay + two.bad_relay
    rows.append(Row("both", "errors + turns not relaying each token", str(errors), "", "", "0",
                    errors == 0))  # fmt: skip
    return rows


def _raw(m: Measured) -> dict[str, Any]:
    return {
        "turns_s": m.turns_s, "turn_p50_s": m.turn_p50_s, "cpu_ms_per_turn": m.cpu_ms_per_turn,
        "cores_busy": m.cores_busy, "processes": m.processes, "ttft_p50_ms": m.ttft_p50_ms,
        "ttft_p99_ms": m.ttft_p99_ms, "errors": m.errors[:5], "error_count": len(m.errors),
        "bad_relay": m.bad_relay,
    }  # fmt: skip


async def run(ctx: Context) -> BenchResult:
    result = BenchResult("B9", "Workers: 2 processes vs 1 (PostgreSQL + Redis)",
                         "1 worker, same run")  # fmt: skip
    measured: list[Measured] = []
    try:
        await check_postgres()
        async with private_redis(ctx.workdir) as redis:
            for index, workers in enumerate((1, 2)):
                async with throwaway_postgres() as database:
                    await upgrade(database)
                    measured.append(await _measure(ctx, workers, database, f"{redis}/{index}"))
    except Unavailable as exc:
        result.skipped = str(exc)
        return result
    one, two = measured
    sizes = ctx.sizes
    result.rows += _rows(one, two, sizes.b9_clients, sizes.b9_seconds)
    result.raw.update({"1_worker": _raw(one), "2_workers": _raw(two)})
    result.notes.append(
        "Server CPU counts the pantheon process and every process below it (2 workers: the "
        "supervisor, both workers and multiprocessing's resource tracker). The mock upstream "
        "and this load generator share the same cores."
    )
    result.notes.append(
        "More cores: a worker is a whole server (turns share only PostgreSQL and Redis), so "
        "with a core free for each worker beyond what the upstream, PostgreSQL and Redis use, "
        "turns/s scales with the workers and CPU per turn stays at the one-worker figure; a "
        "burst's TTFT falls with the workers as each takes its share of the starts. On this "
        f"machine ({os.cpu_count()} cores shared with the mock and this load) a second worker "
        "can only use what they leave."
    )
    if sizes.quick:
        result.notes.append("quick run: tiny load, scaled delays; numbers mean nothing")
    return result
