"""B11: server CPU per turn, read from /proc, for a one-agent turn and a B4 turn.

A fresh SQLite server (the same ``pantheon_bench.server`` as B2-B4) takes, after a warm-up,
a fixed number of turns of each kind at a small concurrency; the server's user + system
CPU time across them, divided by the turns, is the figure (wall time is noise on a shared
machine, CPU time much less so). Kinds: a streamed one-agent turn of ``AGENT_DELTAS``
deltas (every delta relayed to the SSE listener, recorded, replayable), and B4's
orchestrator turn; on SQLite, then (when they are there) on PostgreSQL + Redis like B9's
one worker. Baseline in the same run: the CPU of one authenticated
``GET /v1/sessions/{id}`` (the floor of any request through the stack), so the ratio is
comparable across machines.
"""

from __future__ import annotations

import aiohttp

from pantheon_bench import b9_workers, b11_pace, scenario
from pantheon_bench.b3_orchestrator import timed_turn
from pantheon_bench.b6_recording import throwaway_postgres
from pantheon_bench.client import Api, session
from pantheon_bench.cpu_load import CONCURRENCY, Turn, cpu_ms_per_call, streamed_turn
from pantheon_bench.harness import Context
from pantheon_bench.results import BenchResult, Row, fmt

GOAL_AGENT_MS, GOAL_ORCH_MS, GOAL_ORCH_PG_MS = 8.0, 25.0, 35.0  # issue 28
AGENT_DELTAS = 40


def orchestrator_turn(base: str) -> Turn:
    async def turn(http: aiohttp.ClientSession, session_id: str) -> None:
        _elapsed, problem = await timed_turn(http, base, session_id)
        if problem:
            raise RuntimeError(f"orchestrator turn: {problem}")

    return turn


def read_session(base: str) -> Turn:
    async def read(http: aiohttp.ClientSession, session_id: str) -> None:
        async with http.get(f"{base}/v1/sessions/{session_id}") as response:
            if response.status != 200:
                raise RuntimeError(f"GET session: {response.status}")
            await response.read()

    return read


async def measure(ctx: Context, name: str, **env: str) -> dict[str, float]:
    """CPU ms per read, one-agent turn and orchestrator turn on a fresh server ``name``."""
    server = ctx.start_server(name, **env)
    n = ctx.sizes.b11_turns
    async with session() as http:
        api = Api(http, server.url)
        agents = await api.standalone_sessions("cpu_agent", "cpu40", CONCURRENCY)
        rooms = await api.orchestrator_sessions(
            "b11", scenario.AGENTS, ("mgr", "spec"), CONCURRENCY
        )
    reads, one, orch = (
        read_session(server.url),
        streamed_turn(server.url, AGENT_DELTAS),
        orchestrator_turn(server.url),
    )
    for sessions, kind in ((agents, one), (rooms, orch)):  # warm-up: imports, caches
        await cpu_ms_per_call(server.pid, sessions, CONCURRENCY, kind)
    return {
        "read_ms": await cpu_ms_per_call(server.pid, agents, 10 * n, reads),
        "agent_ms": await cpu_ms_per_call(server.pid, agents, 4 * n, one),
        "orchestrator_ms": await cpu_ms_per_call(server.pid, rooms, n, orch),
    }


async def _postgres_redis(ctx: Context) -> dict[str, float]:
    """``measure`` on a throwaway PostgreSQL database and a private Redis (B9's)."""
    await b9_workers.check_postgres()
    async with b9_workers.private_redis(ctx.workdir) as redis, throwaway_postgres() as database:
        return await measure(
            ctx, "pantheon-cpu-pg", PANTHEON_DATABASE_URL=database, PANTHEON_REDIS_URL=redis
        )


def _rows(
    result: BenchResult, store: str, got: dict[str, float], goals: tuple[float, float]
) -> None:
    read, case = got["read_ms"], f"{store}, {CONCURRENCY} clients"
    for key, label, goal in (
        ("agent_ms", f"one-agent turn, {AGENT_DELTAS} deltas", goals[0]),
        ("orchestrator_ms", "B4 orchestrator turn", goals[1]),
    ):
        ms = got[key]
        result.rows.append(
            Row(f"{label}, {case}", "server CPU per turn", f"{fmt(ms, 1)} ms",
                f"{fmt(read, 2)} ms", f"x{fmt(ms / read, 1)}", f"<= {goal:g} ms", ms <= goal)
        )  # fmt: skip


async def run(ctx: Context) -> BenchResult:
    result = BenchResult("B11", "Server CPU per turn", "one GET /v1/sessions/{id}, same server")
    sqlite = await measure(ctx, "pantheon-cpu")
    _rows(result, "SQLite", sqlite, (GOAL_AGENT_MS, GOAL_ORCH_MS))
    result.raw.update(sqlite=sqlite, turns=ctx.sizes.b11_turns, concurrency=CONCURRENCY)
    try:
        postgres = await _postgres_redis(ctx)
    except b9_workers.Unavailable as exc:
        result.notes.append(f"PostgreSQL + Redis leg skipped: {exc}")
    else:
        _rows(result, "PostgreSQL + Redis", postgres, (GOAL_AGENT_MS, GOAL_ORCH_PG_MS))
        result.raw.update(postgres_redis=postgres)
    paced = await b11_pace.measure(ctx)
    _pace_row(result, paced)
    result.raw.update(paced_per_delta_us=paced)
    if ctx.sizes.quick:
        result.notes.append("quick run: few turns; the goals apply to make bench")
    return result


def _pace_row(result: BenchResult, paced: dict[str, float]) -> None:
    """Pantheon against the floor relay, deltas ``PACE_MS`` apart (no goal: it is the cause
    of the distance to the turn goals above)."""
    ours, floor = paced["pantheon"], paced["floor"]
    clients = "1 client" if b11_pace.CLIENTS == 1 else f"{b11_pace.CLIENTS} clients"
    result.rows.append(
        Row(f"one-agent turn, deltas {b11_pace.PACE_MS} ms apart, SQLite, {clients}",
            "server CPU per relayed delta", f"{fmt(ours, 0)} µs", f"{fmt(floor, 0)} µs",
            f"x{fmt(ours / floor, 1)}" if floor > 0 else "n/a")
    )  # fmt: skip
    result.notes.append(
        "paced row: baseline is the floor relay (pantheon_bench.relay_floor), the same HTTP "
        "stacks with nothing between upstream and client; slope between turns of "
        f"{b11_pace.SMALL} and {b11_pace.BIG} deltas"
    )
