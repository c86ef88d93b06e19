"""B10: what tracing costs: server CPU per B4 turn with tracing off and on, in one run.

Four bench servers (SQLite, one process each) take B4's closed loop (a quarter of its
clients, so that turns finish on a busy machine) one after the other: tracing off (no
OTLP endpoint), on (``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` naming a collector in this
process that decodes and counts every span), off, on; the pairs show the noise. The
server's CPU time (from /proc, all its threads: the span exporter's too) over the whole
loop, and a few seconds after it (the exporter's next batch), is divided by the turns it
ran; the main thread's share (the event loop, where the spans are folded) is shown apart.
The goal (issue 25): on costs at most 5% more CPU per turn than off. What off adds per
turn over no tracing code at all is timed directly: the off path (the request's header
noted, the ``None`` checks at the turn's start) run in a loop here, against the same
run's CPU per turn.
"""

from __future__ import annotations

import asyncio
import gzip
import os
import time
from dataclasses import dataclass, field

from aiohttp import web
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from pantheon.live.observers.tracing_turn import attach, traced
from pantheon.live.registry import TurnObserver
from pantheon.observability.http import header
from pantheon.observability.trace_context import incoming_traceparent
from pantheon.observability.tracing import turn_trace
from pantheon_bench import scenario
from pantheon_bench.b4_throughput import sustained_turns
from pantheon_bench.client import Api, session
from pantheon_bench.harness import Context
from pantheon_bench.procs import cpu_seconds, free_port
from pantheon_bench.results import BenchResult, Row, fmt

GOAL_RATIO = 1.05
EXPORT_WAIT_S = 6.0  # > OTEL_BSP_SCHEDULE_DELAY's default (5 s)
QUICK_WAIT_S = 0.2
OFF_PATH_LOOPS = 200_000
OFF_ENV = {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "", "OTEL_EXPORTER_OTLP_ENDPOINT": ""}


@dataclass
class Collector:
    """An OTLP/HTTP trace endpoint that decodes and counts what it is sent."""

    spans: int = 0
    turns: int = 0
    requests: int = 0
    runner: web.AppRunner | None = None
    port: int = field(default_factory=free_port)

    async def start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/v1/traces", self._handle)
        self.runner = web.AppRunner(app, access_log=None)
        await self.runner.setup()
        await web.TCPSite(self.runner, "127.0.0.1", self.port).start()

    async def stop(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()

    async def _handle(self, request: web.Request) -> web.Response:
        body = await request.read()
        if request.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        sent = ExportTraceServiceRequest.FromString(body)
        self.requests += 1
        for resource in sent.resource_spans:
            for scope in resource.scope_spans:
                self.spans += len(scope.spans)
                self.turns += sum(span.name.startswith("turn ") for span in scope.spans)
        return web.Response(body=b"", content_type="application/x-protobuf")


def main_thread_seconds(pid: int) -> float:
    """CPU time of ``pid``'s main thread alone (the event loop), from /proc."""
    with open(f"/proc/{pid}/task/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Measured:
    label: str
    cpu_ms_per_turn: float = float("nan")
    loop_ms_per_turn: float = float("nan")  # the main thread's share
    turns_s: float = 0.0
    turns: int = 0
    errors: list[str] = field(default_factory=list)


async def _measure(ctx: Context, label: str, env: dict[str, str]) -> Measured:
    """One server: the closed loop, and its CPU over every turn the loop ran (all finish:
    ``sustained_turns`` waits for the turns in flight)."""
    sizes, out = ctx.sizes, Measured(label)
    clients = max(2, sizes.b4_workers // 4)
    child = await asyncio.to_thread(ctx.start_server, f"b10-{label}", **env)
    try:
        async with session() as http:
            sessions = await Api(http, child.url).orchestrator_sessions(
                f"b10{label}", scenario.AGENTS, ("mgr", "spec"), clients
            )
        before, loop_before = cpu_seconds([child.pid]), main_thread_seconds(child.pid)
        load = await sustained_turns(child.url, sessions, ramp_s=0.0, seconds=sizes.b4_seconds)
        # The batch processor's next export is counted too (not in a quick run).
        await asyncio.sleep(QUICK_WAIT_S if sizes.quick else EXPORT_WAIT_S)
        cpu_s = cpu_seconds([child.pid]) - before
        loop_s = main_thread_seconds(child.pid) - loop_before
        out.turns, out.errors = len(load.finished), load.errors
        out.turns_s = out.turns / sizes.b4_seconds
        if out.turns:
            out.cpu_ms_per_turn = cpu_s * 1e3 / out.turns
            out.loop_ms_per_turn = loop_s * 1e3 / out.turns
    finally:
        await asyncio.to_thread(child.stop)  # SIGINT: the server flushes its spans first
    return out


def off_path_us() -> float:
    """Microseconds of tracing's off path per turn, timed here (tracing is off in this
    process): the middleware's header lookup, the trace the turn does not get, the
    tracer it does not attach, the context it does not set."""
    scope = {"type": "http", "headers": [(b"content-type", b"application/json")] * 8}
    watchers: list[TurnObserver] = []
    start = time.perf_counter()
    for _ in range(OFF_PATH_LOOPS):
        incoming_traceparent.set(header(scope, b"traceparent"))
        turn_trace(None)
        attach(watchers, None)
        with traced(None):
            pass
    return (time.perf_counter() - start) * 1e6 / OFF_PATH_LOOPS


def _ratio(new: float, old: float) -> str:
    return f"x{fmt(new / old, 3)}" if old else "n/a"


def _mean(runs: list[Measured], loop: bool = False) -> float:
    return sum(r.loop_ms_per_turn if loop else r.cpu_ms_per_turn for r in runs) / len(runs)


async def run(ctx: Context) -> BenchResult:
    collector = Collector()
    await collector.start()
    on_env = {
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": f"http://127.0.0.1:{collector.port}/v1/traces",
        "OTEL_EXPORTER_OTLP_ENDPOINT": "",
    }
    offs: list[Measured] = []
    ons: list[Measured] = []
    try:
        for n in (1, 2):  # off, on, off, on: drift of a busy machine hits both alike
            offs.append(await _measure(ctx, f"off{n}", OFF_ENV))
            ons.append(await _measure(ctx, f"on{n}", on_env))
    finally:
        await collector.stop()
    off_ms, on_ms = _mean(offs), _mean(ons)
    off_loop, on_loop = _mean(offs, loop=True), _mean(ons, loop=True)
    off_us = off_path_us()
    clients = max(2, ctx.sizes.b4_workers // 4)
    load = f"B4 loop, {clients} clients, {ctx.sizes.b4_seconds:g} s, x2"
    traced = sum(r.turns for r in ons)
    errors = [e for r in offs + ons for e in r.errors]
    each = ", ".join(f"{r.label} {fmt(r.cpu_ms_per_turn, 1)}" for r in offs + ons)
    result = BenchResult("B10", "Server CPU per B4 turn, tracing on vs off", "tracing off")
    result.rows += [
        Row(load, "CPU per turn", f"{fmt(on_ms, 1)} ms", f"{fmt(off_ms, 1)} ms",
            _ratio(on_ms, off_ms), f"<= x{GOAL_RATIO:g}", on_ms <= off_ms * GOAL_RATIO),
        Row(load, "event loop (main thread) CPU per turn", f"{fmt(on_loop, 1)} ms",
            f"{fmt(off_loop, 1)} ms", _ratio(on_loop, off_loop), "", None),
        Row(load, "spread: off2/off1, on2/on1", "", "",
            f"{_ratio(offs[1].cpu_ms_per_turn, offs[0].cpu_ms_per_turn)}, "
            f"{_ratio(ons[1].cpu_ms_per_turn, ons[0].cpu_ms_per_turn)}", "noise", None),
        Row("off path, in process", "CPU per turn", f"{fmt(off_us, 2)} us", f"{fmt(off_ms, 1)} ms",
            f"x{fmt(1 + off_us / (off_ms * 1e3), 5)}", "< x1.001", off_us < off_ms),
        Row("on", "turns traced / finished", f"{collector.turns} / {traced}", "", "",
            "all", collector.turns == traced and not errors),
    ]  # fmt: skip
    result.raw.update(
        cpu_ms=each, cpu_ms_off=off_ms, cpu_ms_on=on_ms, off_path_us=off_us,
        loop_ms_off=off_loop, loop_ms_on=on_loop,
        spans=collector.spans, traced_turns=collector.turns, turns_on=traced,
        export_requests=collector.requests, errors=errors[:5],
    )  # fmt: skip
    if ctx.sizes.quick:
        result.notes.append("quick run: tiny load, scaled delays; the goal applies to make bench")
    return result
