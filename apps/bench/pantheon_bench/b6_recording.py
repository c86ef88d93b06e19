"""B6: the cost of recording a turn: commits per turn (must be 1) and ms per recorded turn.

In this process: the app (``create_app``) with the scripted provider answering the B3
scenario instantly, so a turn is all bookkeeping. ``pantheon.live.runner.record_turn``
is wrapped to time each recording; an SQLAlchemy ``commit`` listener on the engine counts
every commit made while the turns run. Sequential, then 8 turns in flight, on SQLite and
on PostgreSQL (a throwaway database; skipped with a note when no server answers).
Baseline: one empty write transaction (``SELECT 1`` then commit) on the same engine.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import asyncpg
import httpx
from sqlalchemy import event, text

from pantheon.db.migrations import upgrade
from pantheon.db.uow import unit_of_work
from pantheon.live import runner
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.server.main import create_app
from pantheon.settings import Settings
from pantheon_bench import scenario
from pantheon_bench.harness import Context
from pantheon_bench.results import BenchResult, Row, fmt, percentile

PG_DSN = os.environ.get(
    "PANTHEON_TEST_PG_DSN", "postgresql://postgres:postgres@127.0.0.1:5432/postgres"
)
WIDTH = 8


@asynccontextmanager
async def throwaway_postgres() -> AsyncIterator[str]:
    """A fresh database on the server at ``PG_DSN`` (its SQLAlchemy URL), dropped after."""
    admin = await asyncpg.connect(PG_DSN, timeout=5)
    name = f"pantheon_bench_{uuid.uuid4().hex[:10]}"
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        base = PG_DSN.rsplit("/", 1)[0].replace("postgresql://", "postgresql+asyncpg://", 1)
        yield f"{base}/{name}"
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


def _timed(
    times: list[float], inner: Callable[..., Awaitable[None]]
) -> Callable[..., Awaitable[None]]:
    async def record_turn(*args: Any, **kwargs: Any) -> None:
        start = time.perf_counter()
        await inner(*args, **kwargs)
        times.append(time.perf_counter() - start)

    return record_turn


async def _measure(url: str, turns: int) -> dict[str, Any]:
    await upgrade(url)
    scripted = ScriptedProvider()
    scripted.script(json.dumps({"agents": list(scenario.AGENTS)}), purpose="route")
    scripted.script('{"continue": true}', purpose="evaluate")
    settings = Settings(database_url=url, default_model="scripted", log_level="WARNING")
    settings.limits.turns_per_minute = 100_000_000
    app = create_app(settings, scripted=scripted)
    out: dict[str, Any] = {}
    # The runner looks ``record_turn`` up in its module namespace on every turn.
    namespace = vars(runner)
    original = namespace["record_turn"]
    async with app.router.lifespan_context(app):
        engine = app.state.services.db.engine
        commits = 0

        def on_commit(_conn: Any) -> None:
            nonlocal commits
            commits += 1

        event.listen(engine.sync_engine, "commit", on_commit)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as http:
            sessions = await _setup(http)
            for label, width in (("sequential", 1), (f"{WIDTH} concurrent", WIDTH)):
                times: list[float] = []
                namespace["record_turn"] = _timed(times, original)
                try:
                    commits, done = 0, 0
                    while done < turns:
                        count = min(width, turns - done)
                        await asyncio.gather(*(_turn(http, s) for s in sessions[:count]))
                        done += count
                finally:
                    namespace["record_turn"] = original
                out[label] = {"commits_per_turn": commits / done, "turns": done,
                              "p50_ms": percentile(times, 50) * 1e3,
                              "p99_ms": percentile(times, 99) * 1e3}  # fmt: skip
            bare = []
            for _ in range(max(10, turns)):
                start = time.perf_counter()
                async with unit_of_work(app.state.services.db, write=True) as s:
                    await s.execute(text("SELECT 1"))
                bare.append(time.perf_counter() - start)
            out["bare_commit_p50_ms"] = percentile(bare, 50) * 1e3
    return out


async def _setup(http: httpx.AsyncClient) -> list[str]:
    ids = []
    for key in scenario.AGENTS:
        body = {"key": key, "name": key, "role_prompt": f"You are {key}.", "model": "scripted"}
        ids.append((await http.post("/v1/agents", json=body)).json()["id"])
    room = await http.post("/v1/rooms", json={"name": "b6", "mode": "orchestrator"})
    room_id = room.json()["id"]
    for agent_id in ids:
        await http.post(f"/v1/rooms/{room_id}/agents", json={"agent_id": agent_id})
    url = f"/v1/rooms/{room_id}/sessions"
    return [(await http.post(url, json={"title": "b6"})).json()["id"] for _ in range(WIDTH)]


async def _turn(http: httpx.AsyncClient, session_id: str) -> None:
    response = await http.post(f"/v1/sessions/{session_id}/turns", json={"message": "go"})
    if response.status_code != 201 or response.json()["status"] != "completed":
        raise RuntimeError(f"turn failed: {response.status_code} {response.text[:200]}")


async def run(ctx: Context) -> BenchResult:
    result = BenchResult("B6", "Recording a turn (one commit)", "empty write transaction")
    turns = ctx.sizes.b6_turns
    backends: dict[str, dict[str, Any]] = {}
    backends["sqlite"] = await _measure(f"sqlite+aiosqlite:///{ctx.workdir / 'b6.db'}", turns)
    if ctx.sizes.b6_postgres:
        try:
            async with throwaway_postgres() as url:
                backends["postgres"] = await _measure(url, turns)
        except (OSError, asyncpg.PostgresError) as exc:
            result.notes.append(f"PostgreSQL skipped: not reachable at {PG_DSN} ({exc})")
    else:
        result.notes.append("PostgreSQL skipped in the quick run")
    for backend, data in backends.items():
        bare = data["bare_commit_p50_ms"]
        for label in ("sequential", f"{WIDTH} concurrent"):
            d = data[label]
            case = f"{backend}, {label}"
            result.rows += [
                Row(case, "commits per turn", fmt(d["commits_per_turn"]), "", "", "1",
                    d["commits_per_turn"] == 1.0),
                Row(case, "ms per recorded turn p50/p99",
                    f"{fmt(d['p50_ms'])} / {fmt(d['p99_ms'])}",
                    f"{fmt(bare)} ms", f"x{fmt(d['p50_ms'] / bare, 1)}", "", None),
            ]  # fmt: skip
    result.raw.update(backends)
    result.notes.append(
        "A turn here is the orchestrator scenario (3 rounds x 3 specialists, synthesis) "
        "answered instantly by the scripted provider: 1 turn row, 11 messages, 15 LLM calls "
        "and every SSE event written in one transaction."
    )
    return result
