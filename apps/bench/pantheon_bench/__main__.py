"""``python -m pantheon_bench [--quick] [--only B1,B3] [--write PATH]`` (see ``make bench``)."""

from __future__ import annotations

import argparse
import asyncio
import resource
import sys
from pathlib import Path

import uvloop

from pantheon_bench import (
    b1_gateway,
    b2_ttft,
    b3_orchestrator,
    b4_throughput,
    b5_streams,
    b6_recording,
    b7_faults,
    b8_storage,
    b9_workers,
    b10_tracing,
    b11_cpu,
)
from pantheon_bench.harness import FULL, QUICK, Bench, run_all
from pantheon_bench.report import json_line, markdown, text_table

BENCHES: list[tuple[str, Bench]] = [
    ("B1", b1_gateway.run),
    ("B2", b2_ttft.run),
    ("B3", b3_orchestrator.run),
    ("B4", b4_throughput.run),
    ("B5", b5_streams.run),
    ("B6", b6_recording.run),
    ("B7", b7_faults.run),
    ("B8", b8_storage.run),
    ("B9", b9_workers.run),
    ("B10", b10_tracing.run),
    ("B11", b11_cpu.run),
]


def main() -> int:
    parser = argparse.ArgumentParser(prog="pantheon_bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="tiny sizes (a few seconds)")
    parser.add_argument("--only", default="", help="comma-separated keys, e.g. B1,B3")
    parser.add_argument("--write", type=Path, default=None, help="write the Markdown report")
    args = parser.parse_args()
    wanted = {k.strip().upper() for k in args.only.split(",") if k.strip()}
    benches = [(k, b) for k, b in BENCHES if not wanted or k in wanted]
    sizes = QUICK if args.quick else FULL
    # Thousands of client streams (B5): lift our fd limit (children inherit it).
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        results = runner.run(run_all(sizes, benches))
    print(text_table(results))
    for result in results:
        print(json_line(result))
    if args.write is not None:
        command = "make bench-quick" if args.quick else "make bench"
        args.write.write_text(markdown(results, command))
        print(f"wrote {args.write}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
