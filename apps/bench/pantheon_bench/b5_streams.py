"""B5: idle SSE streams on one worker, and connect/disconnect churn.

A fresh server runs a few turns on the mock's ``idle`` model (its first token would come
after 10 minutes), so they stay running. N listeners follow their events
(``GET /v1/turns/{id}/events``), each having read its first event; the server's RSS
(``/proc/<pid>/status``) before and after gives the memory per stream. Then bounded
connect / read first event / disconnect cycles must leave the server's fds, asyncio tasks
(``/_bench/stats``) and RSS where they were. Baseline: the same server with no listener.
"""

from __future__ import annotations

import asyncio
import time

import aiohttp

from pantheon_bench.client import Api, session, sse_events
from pantheon_bench.harness import Context
from pantheon_bench.procs import fd_count, rss_kib
from pantheon_bench.results import BenchResult, Row, fmt

TURNS = 8
BATCH = 200
GOAL_KIB = 64.0


async def _open(http: aiohttp.ClientSession, url: str) -> aiohttp.ClientResponse:
    """A live events stream whose first event has arrived."""
    response = await http.get(url)
    async for _event in sse_events(response):
        break
    return response


async def _cycle(http: aiohttp.ClientSession, url: str) -> None:
    (await _open(http, url)).close()


async def _settle(api: Api, pid: int) -> dict[str, int]:
    await asyncio.sleep(0.5)
    stats = await api.stats(collect=True)
    return {"rss_kib": rss_kib(pid), "fds": fd_count(pid), "tasks": stats["tasks"]}


async def run(ctx: Context) -> BenchResult:
    server = ctx.start_server("pantheon-streams", PANTHEON_LLM__READ_TIMEOUT_S="3600")
    result = BenchResult("B5", "Idle SSE streams and churn", "same server, no listener")
    starters: list[aiohttp.ClientResponse] = []
    listeners: list[aiohttp.ClientResponse] = []
    async with session() as http:
        api = Api(http, server.url)
        sessions = await api.standalone_sessions("idle_agent", "idle", TURNS)
        turn_ids = []
        for session_id in sessions:
            response = await http.post(
                f"{server.url}/v1/sessions/{session_id}/turns?stream=true", json={"message": "wait"}
            )
            starters.append(response)
            async for event in sse_events(response):
                turn_ids.append(str(event["turn_id"]))
                break
        urls = [f"{server.url}/v1/turns/{t}/events" for t in turn_ids]
        try:
            idle = await _settle(api, server.pid)
            result.raw["idle"] = idle
            for level in ctx.sizes.b5_levels:
                deadline = time.monotonic() + 120
                while len(listeners) < level and time.monotonic() < deadline:
                    count = min(BATCH, level - len(listeners))
                    listeners += await asyncio.gather(
                        *(_open(http, urls[(len(listeners) + i) % len(urls)]) for i in range(count))
                    )
                now = await _settle(api, server.pid)
                per = (now["rss_kib"] - idle["rss_kib"]) / max(1, len(listeners))
                result.raw[f"streams_{level}"] = {**now, "kib_per_stream": per}
                result.rows.append(
                    Row(f"{len(listeners)} idle streams", "RSS per stream", f"{fmt(per, 1)} KiB",
                        f"{idle['rss_kib'] / 1024:.1f} MiB idle",
                        f"{now['rss_kib'] / 1024:.1f} MiB total", f"<= {GOAL_KIB:g} KiB",
                        per <= GOAL_KIB and len(listeners) == level)
                )  # fmt: skip
            for response in listeners:
                response.close()
            listeners.clear()
            await _churn(ctx, http, api, server.pid, urls, result)
        finally:
            for response in listeners:
                response.close()
            for turn_id in turn_ids:
                async with http.post(f"{server.url}/v1/turns/{turn_id}/cancel"):
                    pass
            for response in starters:
                response.close()
            server.stop()
    return result


async def _churn(
    ctx: Context,
    http: aiohttp.ClientSession,
    api: Api,
    pid: int,
    urls: list[str],
    result: BenchResult,
) -> None:
    cycles, width = ctx.sizes.b5_cycles, 50
    for i in range(0, min(200, cycles), width):  # warm-up: pools, caches, allocator arenas
        await asyncio.gather(*(_cycle(http, urls[(i + j) % len(urls)]) for j in range(width)))
    before = await _settle(api, pid)
    deadline = time.monotonic() + 300
    done = 0
    while done < cycles and time.monotonic() < deadline:
        count = min(width, cycles - done)
        await asyncio.gather(*(_cycle(http, urls[(done + j) % len(urls)]) for j in range(count)))
        done += count
    after = await _settle(api, pid)
    result.raw["churn"] = {"cycles": done, "before": before, "after": after}
    case = f"{done} connect/disconnect"
    for key, unit, limit in (("tasks", "", 0), ("fds", "", 0), ("rss_kib", " KiB", 1024)):
        growth = after[key] - before[key]
        result.rows.append(
            Row(case, f"{key} growth", f"{growth:+d}{unit}", f"{before[key]}{unit} before", "",
                f"<= {limit}{unit}", growth <= limit and done == cycles)
        )  # fmt: skip
