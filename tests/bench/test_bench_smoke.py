"""``make bench-quick`` (its Python entry point) runs end to end and prints its table.

No timing assertions: numbers on a shared test machine mean nothing. This only keeps
the harness, the mock upstream and the bench server from rotting.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# This checkout's code, not whichever checkout the venv was installed from: the servers
# B9 starts are ``python -m pantheon`` child processes.
PYTHONPATH = os.pathsep.join([str(ROOT / "apps" / "api"), str(ROOT / "apps" / "bench")])
# Hang guards, not expectations: a quick run takes a minute or two on an idle machine,
# but on a loaded 2-core one it passed 300 s (issue 33); each server it starts is polled
# until it listens (``procs.READY_GUARD_S``).
RUN_GUARD_S = 1800


def test_bench_quick_prints_its_table() -> None:
    env = {**os.environ, "PYTHONPATH": PYTHONPATH}
    done = subprocess.run(
        [sys.executable, "-m", "pantheon_bench", "--quick"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=RUN_GUARD_S, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["bench", "case", "metric", "pantheon", "baseline", "compare",
                                "goal", "met"]  # fmt: skip
    for key in ("B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9", "B10", "B11"):
        assert any(line.startswith(f"{key} ") for line in lines), f"{key} missing"
        assert any(line.startswith(f'{{"bench":"{key}"') for line in lines)
    skipped = {
        bench["bench"]: bench["skipped"]
        for bench in (json.loads(line) for line in lines if line.startswith('{"bench":'))
        if bench["skipped"]
    }
    # B9 needs PostgreSQL and redis-server: it may skip, with that reason, outside CI only.
    allowed = set() if os.environ.get("CI") == "true" else {"B9"}
    assert set(skipped) <= allowed, skipped
    if "B9" in skipped:
        assert skipped["B9"].startswith(("PostgreSQL not reachable", "redis-server not found"))


def test_b9_skips_with_the_reason_when_postgresql_is_not_there() -> None:
    closed = f"postgresql://postgres:postgres@127.0.0.1:{_closed_port()}/postgres"
    env = {**os.environ, "PYTHONPATH": PYTHONPATH, "PANTHEON_TEST_PG_DSN": closed}
    done = subprocess.run(
        [sys.executable, "-m", "pantheon_bench", "--quick", "--only", "B9"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=RUN_GUARD_S, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    [line] = [line for line in done.stdout.splitlines() if line.startswith('{"bench":')]
    result = json.loads(line)
    assert result["bench"] == "B9"
    assert result["skipped"].startswith(f"PostgreSQL not reachable at {closed}")


def _closed_port() -> int:
    with socket.socket() as sock:  # bound, never listening: connections are refused
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_b11_reports_server_cpu_per_turn_kind() -> None:
    env = {**os.environ, "PYTHONPATH": PYTHONPATH}
    done = subprocess.run(
        [sys.executable, "-m", "pantheon_bench", "--quick", "--only", "B11"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=RUN_GUARD_S, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    [line] = [line for line in done.stdout.splitlines() if line.startswith('{"bench":')]
    result = json.loads(line)
    assert result["skipped"] is None
    legs = [result["results"]["sqlite"]]
    if "postgres_redis" in result["results"]:
        legs.append(result["results"]["postgres_redis"])
    else:  # needs PostgreSQL and redis-server: mandatory in CI
        assert os.environ.get("CI") != "true", result["notes"]
        assert any(n.startswith("PostgreSQL + Redis leg skipped") for n in result["notes"])
    for leg in legs:
        assert set(leg) == {"read_ms", "agent_ms", "orchestrator_ms"}
        assert all(ms > 0 for ms in leg.values()), leg
    # The paced leg: Pantheon and the floor relay each relayed every delta, at some cost.
    paced = result["results"]["paced_per_delta_us"]
    assert set(paced) == {"pantheon", "floor"}
    assert all(us > 0 for us in paced.values()), paced
    cases = [row.split("  ")[0] for row in done.stdout.splitlines() if row.startswith("B11 ")]
    assert len(cases) == 2 * len(legs) + 1
