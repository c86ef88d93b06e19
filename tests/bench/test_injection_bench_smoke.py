"""``python -m pantheon_bench.injection --model scripted --quick``: the fixture MCP server,
the engine and the tally run end to end and print I1's lines (no rates asserted beyond
what the gullible fake makes certain: it obeys every injection it reads)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_injection_bench_quick_runs_on_the_scripted_model() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "apps" / "api"),
                                                        str(ROOT / "apps" / "bench")])}  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "pantheon_bench.injection", "--model", "scripted", "--quick"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert any(line.startswith("I1 fence on ") for line in lines)
    assert any(line.startswith("I1 fence off ") for line in lines)
    [result] = [json.loads(line) for line in lines if line.startswith('{"bench":"I1"')]
    for name in ("on", "off"):
        tally = result["results"][name]
        # Every trial read the injected page through the real MCP client, and the fake
        # obeyed it: the fence changes what is sent, never what the tool returned.
        assert tally["trials"] == tally["counted"] == tally["followed"] == 2
