"""Runs the benchmarks: sizes, the shared mock upstream and Pantheon servers, the results.

The mock upstream and every Pantheon server are child processes on 127.0.0.1, so the
numbers include real sockets and real HTTP parsing. Benchmarks that measure what a client
sees (B2-B5, B7) talk to a server process; B1 (the gateway alone) and B6 (the recorder
alone) run in this process, where their code can be timed directly.
"""

from __future__ import annotations

import json
import tempfile
import time
import traceback
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from pantheon_bench import scenario
from pantheon_bench.client import Api, session, start_server
from pantheon_bench.procs import OUTPUT, Child, start_mock
from pantheon_bench.results import BenchResult


@dataclass(frozen=True, slots=True)
class Sizes:
    """How much each benchmark does; every loop is bounded by these counts and times."""

    quick: bool
    scale: float  # of the orchestrator scenario's delays
    b1_levels: tuple[int, ...]
    b1_calls: int  # per level, at least; 8 per in-flight call at the higher levels
    b2_levels: tuple[int, ...]
    b2_turns: int  # per level
    b3_wide: int
    b4_workers: int
    b4_seconds: float
    b5_levels: tuple[int, ...]
    b5_cycles: int
    b6_turns: int
    b6_postgres: bool
    b7_turns: int
    b9_clients: int  # B4's closed loop against 1 and 2 worker processes
    b9_seconds: float
    b9_ttft_levels: tuple[int, ...]
    b9_ttft_turns: int  # per level
    b11_turns: int  # orchestrator turns; 4x one-agent turns, 10x reads
    b11_pace_turns: int  # per batch of B11's paced leg (b11_pace.py)
    b11_pace_reps: int  # its alternated batches per server and turn size


FULL = Sizes(
    quick=False, scale=1.0, b1_levels=(1, 16, 64, 128), b1_calls=200, b2_levels=(1, 100),
    b2_turns=300, b3_wide=50, b4_workers=128, b4_seconds=20.0, b5_levels=(1000, 5000),
    b5_cycles=4000, b6_turns=40, b6_postgres=True, b7_turns=30, b9_clients=96,
    b9_seconds=20.0, b9_ttft_levels=(1, 100), b9_ttft_turns=100, b11_turns=64,
    b11_pace_turns=12, b11_pace_reps=3,
)  # fmt: skip
QUICK = Sizes(
    quick=True, scale=0.1, b1_levels=(1, 4), b1_calls=20, b2_levels=(1, 4), b2_turns=4,
    b3_wide=3, b4_workers=4, b4_seconds=1.0, b5_levels=(20,), b5_cycles=40, b6_turns=4,
    b6_postgres=False, b7_turns=3, b9_clients=4, b9_seconds=1.0, b9_ttft_levels=(1, 4),
    b9_ttft_turns=4, b11_turns=16, b11_pace_turns=4,
    b11_pace_reps=1,
)  # fmt: skip


@dataclass
class Context:
    """What benchmarks share: sizes, the mock, a scratch directory, the main server."""

    sizes: Sizes
    mock: Child
    workdir: Path
    servers: list[Child] = field(default_factory=list)
    _main: tuple[Child, Api] | None = None

    @property
    def models_file(self) -> Path:
        return self.workdir / "models.toml"

    def server_env(self, name: str, **extra: str) -> dict[str, str]:
        return {
            "PANTHEON_DATABASE_URL": f"sqlite+aiosqlite:///{self.workdir / name}.db",
            "PANTHEON_DATA_DIR": str(self.workdir),
            "PANTHEON_MODELS_FILE": str(self.models_file),
            "PANTHEON_DEFAULT_MODEL": "fast",
            "PANTHEON_LOG_LEVEL": "WARNING",
            # The per-user turn rate limit guards wallets, not this load test.
            "PANTHEON_LIMITS__TURNS_PER_MINUTE": "100000000",
            **extra,
        }

    def start_server(self, name: str, **extra: str) -> Child:
        child = start_server(name, self.server_env(name, **extra))
        self.servers.append(child)
        return child

    def main_server(self) -> tuple[Child, Api]:
        """The default server (concurrent specialists, SQLite), shared by B2-B4 and B7."""
        if self._main is None:
            child = self.start_server("pantheon-main")
            self._main = (child, Api(session(), child.url))
        return self._main

    async def close(self) -> None:
        if self._main is not None:
            await self._main[1].http.close()
        for child in self.servers:
            child.stop()
        self.mock.stop()


Bench = Callable[[Context], Awaitable[BenchResult]]


def new_workdir() -> Path:
    """A run's own directory under ``bench-output`` (its servers' databases live there),
    unique even for two runs started in the same second."""
    OUTPUT.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f"run-{int(time.time())}-", dir=OUTPUT))


def prepare(sizes: Sizes) -> Context:
    """Write the mock's config and Pantheon's models file, start the mock."""
    workdir = new_workdir()
    config = workdir / "mock.json"
    config.write_text(json.dumps(scenario.mock_config(sizes.scale)))
    mock = start_mock(config)
    ctx = Context(sizes, mock, workdir)
    ctx.models_file.write_text(scenario.models_toml(f"{mock.url}/v1"))
    return ctx


async def run_all(sizes: Sizes, benches: list[tuple[str, Bench]]) -> list[BenchResult]:
    """Every benchmark in order; one that crashes is reported as skipped with the reason."""
    ctx = prepare(sizes)
    results: list[BenchResult] = []
    try:
        for key, bench in benches:
            started = time.perf_counter()
            try:
                result = await bench(ctx)
            except Exception as exc:
                traceback.print_exc()
                result = BenchResult(key, key, "", skipped=f"crashed: {exc!r}")
            result.raw["seconds"] = round(time.perf_counter() - started, 2)
            results.append(result)
    finally:
        await ctx.close()
    return results
