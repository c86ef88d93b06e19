"""``make bench-quick`` (its Python entry point) runs end to end and prints its table.

No timing assertions: numbers on a shared test machine mean nothing. This only keeps
the harness, the mock upstream and the bench server from rotting.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_quick_prints_its_table() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "apps" / "bench")}
    done = subprocess.run(
        [sys.executable, "-m", "pantheon_bench", "--quick"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["bench", "case", "metric", "pantheon", "baseline", "compare",
                                "goal", "met"]  # fmt: skip
    for key in ("B1", "B2", "B3", "B4", "B5", "B6", "B7"):
        assert any(line.startswith(f"{key} ") for line in lines), f"{key} missing"
        assert any(line.startswith(f'{{"bench":"{key}"') for line in lines)
    assert "skipped" not in {line.split()[2] for line in lines[2:] if line[:1] == "B"}
