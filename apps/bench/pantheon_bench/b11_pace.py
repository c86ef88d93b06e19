"""B11's leg at a model's pace: server CPU per relayed delta when deltas arrive 10 ms apart,
Pantheon against the floor relay (``relay_floor``) measured in the same run.

At a model's real pace every delta arrives on its own, and the server wakes for each one:
the cost per delta is then several times what a burst of deltas costs (B11's one-agent row,
1 ms apart). The figure is the slope between turns of ``SMALL`` and ``BIG`` deltas, so a
turn's fixed cost (request, preflight, commit) falls out.
"""

from __future__ import annotations

import statistics

from pantheon_bench import scenario
from pantheon_bench.client import Api, session
from pantheon_bench.cpu_load import cpu_ms_per_call, streamed_turn
from pantheon_bench.harness import Context
from pantheon_bench.procs import Child, free_port, start_child

SMALL, BIG = 20, 120
PACE_MS = 10
# One client: every delta wakes the server on its own. With several, their streams drift
# in and out of step and share wake-ups or not, which moved the figure by half in a run.
CLIENTS = 1
# Aliases of the mock's models (scenario.ALIASES): SMALL and BIG deltas, PACE_MS apart.
MODELS = {SMALL: "pace20", BIG: "pace120"}


def start_floor(ctx: Context) -> Child:
    """The floor relay, on the run's mock."""
    port = free_port()
    args = ["--port", str(port), "--upstream", f"{ctx.mock.url}/v1"]
    child = start_child("relay-floor", "pantheon_bench.relay_floor", args, port)
    ctx.servers.append(child)
    return child


async def measure(ctx: Context) -> dict[str, float]:
    """CPU µs per relayed delta of a fresh SQLite Pantheon server and of the floor relay,
    their batches alternated (medians), so both see the same machine."""
    pantheon, floor = ctx.start_server("pantheon-pace"), start_floor(ctx)
    async with session() as http:
        api = Api(http, pantheon.url)
        ours = {n: await api.standalone_sessions(f"pace{n}", m, CLIENTS) for n, m in MODELS.items()}
    # The floor relay reads the mock's model name from where a session id goes.
    theirs = {n: [scenario.ALIASES[m]] * CLIENTS for n, m in MODELS.items()}
    targets = {"pantheon": (pantheon, ours), "floor": (floor, theirs)}
    for child, sessions in targets.values():  # warm-up
        for n in MODELS:
            await cpu_ms_per_call(child.pid, sessions[n], CLIENTS, streamed_turn(child.url, n))
    samples: dict[tuple[str, int], list[float]] = {}
    order = list(targets)
    for _ in range(ctx.sizes.b11_pace_reps):
        for n in MODELS:
            for name in order:
                child, sessions = targets[name]
                ms = await cpu_ms_per_call(
                    child.pid, sessions[n], ctx.sizes.b11_pace_turns, streamed_turn(child.url, n)
                )
                samples.setdefault((name, n), []).append(ms)
        order.reverse()
    return {name: _per_delta_us(samples[(name, SMALL)], samples[(name, BIG)]) for name in targets}


def _per_delta_us(small: list[float], big: list[float]) -> float:
    return 1000 * (statistics.median(big) - statistics.median(small)) / (BIG - SMALL)
