"""K2: ingest throughput of a generated PDF, and what an ingest costs running turns.

One server (in process, SQLite). First the PDF of ``pages`` pages is ingested with
nothing else going on (upload to ready: the ingest's own speed). Then ``turns`` turns run
back to back (scripted agent: 50 ms before its first token, then 20 small chunks, about
what a fast local model feels like); then the same PDF is uploaded to a second room and
turns run back to back until it is ready. The ratio of turn latencies during / before
ingest says how much ingest slows turns; pages/s is pages over upload-to-ready time.
"""

from __future__ import annotations

import time

import httpx

from pantheon_bench.knowledge.app import database, post, running, wait_ready
from pantheon_bench.knowledge.pdf import pdf_of_pages
from pantheon_bench.results import BenchResult, Row, fmt, percentile

GOAL_S = 60.0
GOAL_RATIO = 1.25


async def _turn(http: httpx.AsyncClient, session_id: str) -> float:
    started = time.perf_counter()
    response = await http.post(f"/v1/sessions/{session_id}/turns", json={"message": "hello"})
    response.raise_for_status()
    return time.perf_counter() - started


async def _ingest_alone(http: httpx.AsyncClient, data: bytes) -> float:
    room = await post(http, "/v1/rooms", json={"name": "k2 alone"})
    started = time.perf_counter()
    files = {"file": ("generated.pdf", data, "application/pdf")}
    document = await post(http, f"/v1/rooms/{room['id']}/documents", files=files)
    await wait_ready(http, document["id"])
    return time.perf_counter() - started


async def run(pages: int, turns: int, embedder: str) -> BenchResult:
    data = pdf_of_pages(pages)
    result = BenchResult("K2", f"Ingest of a {pages}-page PDF ({embedder})", "turns before ingest")
    async with database("sqlite") as url, running(url, embedder) as live:
        alone = await _ingest_alone(live.http, data)
        live.scripted.script("ok " * 80, delay_s=0.05, chunk_delay_s=0.001)
        agent = await post(
            live.http, "/v1/agents", json={"key": "a", "name": "A", "role_prompt": "r"}
        )
        room = await post(live.http, "/v1/rooms", json={"name": "k2"})
        await post(live.http, f"/v1/rooms/{room['id']}/agents", json={"agent_id": agent["id"]})
        session = await post(live.http, f"/v1/rooms/{room['id']}/sessions", json={})
        before = [await _turn(live.http, session["id"]) for _ in range(turns)]
        started = time.perf_counter()
        files = {"file": ("generated.pdf", data, "application/pdf")}
        document = await post(live.http, f"/v1/rooms/{room['id']}/documents", files=files)
        during: list[float] = []
        while (await live.http.get(f"/v1/documents/{document['id']}")).json()[
            "status"
        ] == "pending":
            during.append(await _turn(live.http, session["id"]))
        ready = await wait_ready(live.http, document["id"])
        elapsed = time.perf_counter() - started
    p50_b, p95_b = percentile(before, 50), percentile(before, 95)
    p50_d, p95_d = percentile(during, 50), percentile(during, 95)
    ratio = p50_d / p50_b
    result.rows += [
        Row(f"{pages} pages, {ready['chunks']} chunks, nothing else running", "upload -> ready",
            f"{fmt(alone, 1)} s", "", f"{fmt(pages / alone, 2)} pages/s",
            f"< {GOAL_S:g} s (100 pages)", alone < GOAL_S if pages >= 100 else None),
        Row(f"{pages} pages, {ready['chunks']} chunks, turns back to back", "upload -> ready",
            f"{fmt(elapsed, 1)} s", "", f"{fmt(pages / elapsed, 2)} pages/s"),
        Row(f"{len(before)} / {len(during)} turns", "turn p50 during / before",
            f"{fmt(p50_d * 1000, 1)} ms", f"{fmt(p50_b * 1000, 1)} ms", f"x{fmt(ratio)}",
            f"<= x{GOAL_RATIO}", ratio <= GOAL_RATIO if during else None),
        Row(f"{len(before)} / {len(during)} turns", "turn p95 during / before",
            f"{fmt(p95_d * 1000, 1)} ms", f"{fmt(p95_b * 1000, 1)} ms", f"x{fmt(p95_d / p95_b)}"),
    ]  # fmt: skip
    result.raw.update(
        pages=pages, chunks=ready["chunks"], seconds_alone=alone, seconds=elapsed,
        pages_s=pages / elapsed,
        turn_p50_before=p50_b, turn_p50_during=p50_d, turn_p95_before=p95_b,
        turn_p95_during=p95_d, turns_during=len(during), embedder=embedder,
    )  # fmt: skip
    return result
