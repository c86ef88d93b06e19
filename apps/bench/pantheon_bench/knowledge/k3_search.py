"""K3: search latency (p50/p95) at N chunks on SQLite and PostgreSQL.

Chunks are written straight into the tables (100 per ready document), with
texts cut from the corpus plus a unique token, and vectors from the hashing embedder
(384 dims, like e5-small); searching costs the same whatever made the vectors. Each of
the 54 corpus questions is searched once per mode through the search service (recall@5:
the share whose top 5 holds a chunk with a sentence of the question's passage), with the
app's vector cache (the first search of a place loads its vectors: reported on its own
row); the hashing query embedding is included (about 0.1 ms); a local e5 query embedding
adds its own time (K4). Backends: ``sqlite`` and ``postgres`` (exact vector search in
numpy, ADR 0008) and ``pgvector`` (HNSW index scan, ADR 0009; the vector column is
filled after the chunks are written, as ``detect`` does at startup). Goals from the
issue: hybrid p95 <= 150 ms at 10k chunks on SQLite, <= 50 ms at 100k with pgvector, and
<= 50 ms at 100k on plain PostgreSQL when the searched room holds 1% of them: with
``rooms`` > 1 the chunks are spread evenly over that many rooms (each with its own
documents) and every question searches the first room only.
"""

from __future__ import annotations

import time
import uuid

from pantheon.db.base import utcnow
from pantheon.db.models import Chunk, Document
from pantheon.db.uow import unit_of_work
from pantheon.knowledge.embedders.hashing import HashingEmbedder
from pantheon.knowledge.repository import ChunkRepository
from pantheon.knowledge.search import KnowledgeSearch, Mode
from pantheon.knowledge.vectors import to_blob
from pantheon_bench.knowledge.app import Running, database, post, running
from pantheon_bench.knowledge.corpus import PASSAGES, QUESTIONS
from pantheon_bench.results import BenchResult, Row, fmt, percentile

PER_DOCUMENT = 100
# (backend, chunks, rooms) -> the hybrid p95 goal in ms
GOALS_MS = {
    ("sqlite", 10_000, 1): 150.0,
    ("pgvector", 100_000, 1): 50.0,
    ("postgres", 100_000, 100): 50.0,
}
MODES: tuple[Mode, ...] = ("hybrid", "vector", "keyword")


def _texts(n: int) -> list[str]:
    sentences = [s.strip() + "." for p in PASSAGES.values() for s in p.split(".") if s.strip()]
    return [
        " ".join(sentences[(i * 7 + k) % len(sentences)] for k in range(4)) + f" item{i}"
        for i in range(n)
    ]


async def _fill(live: Running, rooms: list[str], n: int) -> None:
    """``n`` chunks spread evenly over ``rooms``, 100 per document."""
    per_room = n // len(rooms)
    texts = _texts(n)
    for index, room in enumerate(rooms):
        await _fill_room(live, room, texts[index * per_room : (index + 1) * per_room])


async def _fill_room(live: Running, place_room: str, texts: list[str]) -> None:
    embedder: HashingEmbedder = live.app.state.services.knowledge.embedder
    owner = live.app.state.services.local_user_id
    n = len(texts)
    for start in range(0, n, PER_DOCUMENT * 10):
        async with unit_of_work(live.app.state.services.db, write=True) as session:
            for doc_start in range(start, min(n, start + PER_DOCUMENT * 10), PER_DOCUMENT):
                batch = texts[doc_start : doc_start + PER_DOCUMENT]
                document = Document(
                    id=uuid.uuid4(), owner_id=owner, room_id=uuid.UUID(place_room),
                    place=f"room:{place_room}", filename=f"doc{doc_start}.txt", format="txt",
                    content_type="text/plain", bytes=1, sha256=uuid.uuid4().hex, status="ready",
                    chunk_count=len(batch), created_at=utcnow(),
                )  # fmt: skip
                session.add(document)
                await session.flush()  # the chunks' foreign key needs the row first
                vectors = embedder.embed_sync(batch)
                session.add_all(
                    Chunk(id=uuid.uuid4(), document_id=document.id, position=i, text=text,
                          embedder=embedder.ident, dim=embedder.dim, embedding=to_blob(vector))
                    for i, (text, vector) in enumerate(zip(batch, vectors, strict=True))
                )  # fmt: skip


def _answers(topic: str, text: str) -> bool:
    """Whether a chunk holds a sentence of ``topic``'s passage (K3's chunks mix passages)."""
    return any(s.strip() and s.strip() + "." in text for s in PASSAGES[topic].split("."))


async def _latencies(
    live: Running, room_id: str, mode: Mode, questions: list[tuple[str, str]]
) -> tuple[list[float], float]:
    """Each question's search time, and the share whose top 5 holds an answering chunk."""
    services = live.app.state.services
    known = services.knowledge
    times, found = [], 0
    for question, topic in questions:
        started = time.perf_counter()
        async with unit_of_work(services.db, write=False) as session:
            chunks = ChunkRepository(session)
            search = KnowledgeSearch(
                chunks, known.embedder, services.db.dialect, known.vector_cache, known.pgvector
            )
            hits = await search.search([f"room:{room_id}"], question, 5, mode)
        times.append(time.perf_counter() - started)
        found += any(_answers(topic, hit.text) for hit in hits)
    return times, found / len(questions)


async def run(sizes: list[int], backends: list[str], rooms: int = 1) -> BenchResult:
    result = BenchResult("K3", "Search latency by corpus size", "-")
    for backend in backends:
        for n in sizes:
            async with database(backend) as url, running(url, "hashing") as live:
                made = [
                    await post(live.http, "/v1/rooms", json={"name": f"k3-{i}"})
                    for i in range(rooms)
                ]
                room = made[0]
                await _fill(live, [r["id"] for r in made], n)
                if backend == "pgvector":
                    if live.app.state.services.knowledge.pgvector is None:
                        result.notes.append(
                            f"pgvector: {live.app.state.services.knowledge.detection.reason}"
                        )
                        continue
                    await live.app.state.services.knowledge.pgvector.backfill(
                        live.app.state.services.db
                    )
                case = f"{backend}, {n} chunks" + (f", room of {n // rooms}" if rooms > 1 else "")
                cold, _ = await _latencies(live, room["id"], "vector", QUESTIONS[:1])
                shown = f"{fmt(cold[0] * 1000, 1)} ms"
                result.rows.append(Row(case, "first search (loads vectors)", shown))
                for mode in MODES:
                    times, recall = await _latencies(live, room["id"], mode, QUESTIONS)
                    p50, p95 = percentile(times, 50), percentile(times, 95)
                    shown = f"{fmt(p50 * 1000, 1)} / {fmt(p95 * 1000, 1)} ms, recall@5 {recall:.2f}"
                    goal = GOALS_MS.get((backend, n, rooms)) if mode == "hybrid" else None
                    result.rows.append(
                        Row(case, f"{mode} p50 / p95", shown,
                            goal=f"p95 <= {goal:g} ms" if goal else "",
                            met=p95 * 1000 <= goal if goal else None)
                    )  # fmt: skip
                    result.raw[f"{backend}/{n}/{rooms}/{mode}"] = {
                        "p50_ms": p50 * 1000,
                        "p95_ms": p95 * 1000,
                        "recall@5": recall,
                    }
    return result
