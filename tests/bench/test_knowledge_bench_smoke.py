"""``python -m pantheon_bench.knowledge --quick`` runs K1-K4 end to end and prints a table.

No timing assertions (a shared machine); it keeps the knowledge benchmarks from rotting.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_knowledge_bench_quick_prints_its_table() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "apps" / "api"),
                                                        str(ROOT / "apps" / "bench")])}  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "pantheon_bench.knowledge", "--quick"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    for key in ("K1", "K2", "K3", "K4"):
        assert any(line.startswith(f"{key} ") for line in lines), f"{key} missing"
        assert any(line.startswith(f'{{"bench":"{key}"') for line in lines)
    assert any("hybrid recall@5" in line for line in lines)


def test_k3_spreads_chunks_over_rooms_and_searches_one() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "apps" / "api"),
                                                        str(ROOT / "apps" / "bench")])}  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "pantheon_bench.knowledge", "--only", "K3", "--chunks", "400",
         "--rooms", "4", "--backends", "sqlite"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "sqlite, 400 chunks, room of 100" in done.stdout
    assert '"sqlite/400/4/hybrid"' in done.stdout
    recalls = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert 0 < recalls[0]["results"]["sqlite/400/4/keyword"]["recall@5"] <= 1
