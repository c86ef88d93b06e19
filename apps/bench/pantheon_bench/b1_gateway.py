"""B1: what Pantheon's gateway adds to one LLM call, at 1 to 128 calls in flight.

Pantheon: ``LLMGateway.complete`` over the app's own upstream session
(``make_upstream_session``: aiohttp, ADR 0027), which streams, parses SSE, cleans text and
folds usage. Baseline: the same request body POSTed straight to the mock with a bare
aiohttp session, reading the streamed body to its end. Both run in this process, in
alternating slices, so drift hits both alike. Added latency is the difference of the
percentiles.
"""

from __future__ import annotations

from pantheon.llm.factory import build_gateway
from pantheon.llm.http import make_http_client, make_upstream_session
from pantheon.llm.providers.openai_compat import request_body
from pantheon.llm.types import ChatMessage, LLMRequest
from pantheon.settings import Settings
from pantheon_bench.client import session
from pantheon_bench.harness import Context
from pantheon_bench.load import LoadRun, closed_loop
from pantheon_bench.results import BenchResult, Row, fmt, percentile

SLICES = 4
ALIAS = "b1"


def _merge(runs: list[LoadRun]) -> tuple[list[float], float, int]:
    latencies = [x for r in runs for x in r.latencies]
    elapsed = sum(r.elapsed_s for r in runs)
    return latencies, len(latencies) / elapsed if elapsed else 0.0, sum(len(r.errors) for r in runs)


async def run(ctx: Context) -> BenchResult:
    settings = Settings(models_file=ctx.models_file, database_url="sqlite+aiosqlite://")
    client = make_http_client(settings.llm)
    upstream = make_upstream_session(settings.llm)
    gateway = build_gateway(settings, upstream, client)
    messages = (ChatMessage("system", "You are a benchmark."), ChatMessage("user", "Hello!"))
    request = LLMRequest(ALIAS, messages)
    alias = gateway.registry.get(ALIAS)
    url, body = f"{alias.base_url}/chat/completions", request_body(alias, request)
    raw_http = session()

    async def raw(_: int) -> None:
        async with raw_http.post(url, json=body) as response:
            response.raise_for_status()
            async for _chunk in response.content.iter_any():
                pass

    async def pantheon(_: int) -> None:
        await gateway.complete(request)

    result = BenchResult("B1", "Overhead per LLM call (gateway vs direct)", "bare aiohttp POST")
    previous_best = 0.0
    try:
        for level in ctx.sizes.b1_levels:
            total = max(ctx.sizes.b1_calls, 8 * level)
            per_slice = max(level, total // SLICES)
            calls = (("raw", raw), ("gw", pantheon))
            for _name, call in calls:  # warm up: open the connections
                await closed_loop(call, concurrency=level, total=level, deadline_s=30)
            runs: dict[str, list[LoadRun]] = {name: [] for name, _call in calls}
            for _ in range(SLICES):
                for name, call in calls:
                    runs[name].append(
                        await closed_loop(call, concurrency=level, total=per_slice, deadline_s=60)
                    )
            base, base_rate, base_err = _merge(runs["raw"])
            gw, gw_rate, gw_err = _merge(runs["gw"])
            stats = {
                "p50_ms": (percentile(gw, 50) * 1e3, percentile(base, 50) * 1e3),
                "p99_ms": (percentile(gw, 99) * 1e3, percentile(base, 99) * 1e3),
            }
            result.raw[f"c{level}"] = {
                "gateway_p50_ms": stats["p50_ms"][0], "direct_p50_ms": stats["p50_ms"][1],
                "gateway_p99_ms": stats["p99_ms"][0], "direct_p99_ms": stats["p99_ms"][1],
                "gateway_calls_s": gw_rate, "direct_calls_s": base_rate,
                "calls": len(gw), "errors": gw_err + base_err,
            }  # fmt: skip
            result.rows.extend(_rows(level, stats, gw_rate, base_rate, previous_best))
            if gw_err or base_err:
                result.rows.append(Row(f"c={level}", "errors", str(gw_err), str(base_err),
                                       goal="0", met=False))  # fmt: skip
            previous_best = max(previous_best, gw_rate)
    finally:
        await raw_http.close()
        await client.aclose()
        await upstream.close()
    return result


def _rows(
    level: int, stats: dict[str, tuple[float, float]], rate: float, base_rate: float, best: float
) -> list[Row]:
    rows = []
    for metric, (gw, base) in stats.items():
        added = gw - base
        limit = {"p50_ms": 2.0 if level <= 16 else 5.0 if level <= 64 else None,
                 "p99_ms": 8.0 if level <= 16 else None}[metric]  # fmt: skip
        rows.append(
            Row(
                f"c={level}", metric.replace("_ms", " latency"), f"{fmt(gw)} ms",
                f"{fmt(base)} ms", f"+{fmt(added)} ms",
                f"added <= {limit:g} ms" if limit is not None else "",
                None if limit is None else added <= limit,
            )
        )  # fmt: skip
    rows.append(
        Row(
            f"c={level}", "calls/s", fmt(rate, 0), fmt(base_rate, 0),
            f"x{fmt(rate / base_rate if base_rate else 0.0)}",
            ">= 0.9 x best lower level" if best else "", rate >= 0.9 * best if best else None,
        )
    )  # fmt: skip
    return rows
