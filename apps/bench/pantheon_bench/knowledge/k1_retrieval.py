"""K1: recall@5 on the labelled set (corpus.py), hybrid vs vector-only vs keyword-only.

Each passage is uploaded as its own text document to one room and ingested; every
question is searched in each mode through the search service (the API always runs
hybrid; the modes are a parameter of the service). A question counts as found when its
passage's document is among the first five results. MRR@5 is reported as well.
"""

from __future__ import annotations

from pantheon.db.uow import unit_of_work
from pantheon.knowledge.repository import ChunkRepository
from pantheon.knowledge.search import KnowledgeSearch, Mode
from pantheon_bench.knowledge.app import database, post, running, wait_ready
from pantheon_bench.knowledge.corpus import PASSAGES, QUESTIONS
from pantheon_bench.results import BenchResult, Row, fmt

MODES: tuple[Mode, ...] = ("hybrid", "vector", "keyword")


async def run(embedders: list[str]) -> BenchResult:
    result = BenchResult("K1", "Retrieval recall@5 (24 passages, 54 questions)", "keyword-only")
    for embedder in embedders:
        scores = await _measure(embedder)
        for mode in MODES:
            recall, mrr = scores[mode]
            base = scores["keyword"][0]
            result.rows.append(Row(f"{embedder} embedder", f"{mode} recall@5 / MRR",
                                   f"{fmt(recall)} / {fmt(mrr)}", fmt(base),
                                   f"{recall - base:+.2f}"))  # fmt: skip
        result.raw[embedder] = {m: {"recall@5": r, "mrr@5": q} for m, (r, q) in scores.items()}
    return result


async def _measure(embedder: str) -> dict[str, tuple[float, float]]:
    async with database("sqlite") as url, running(url, embedder) as live:
        room = await post(live.http, "/v1/rooms", json={"name": "k1"})
        names = {}
        for topic, text in PASSAGES.items():
            files = {"file": (f"{topic}.txt", text.encode())}
            document = await post(live.http, f"/v1/rooms/{room['id']}/documents", files=files)
            names[topic] = document["id"]
        for document_id in names.values():
            await wait_ready(live.http, document_id)
        scores: dict[str, tuple[float, float]] = {}
        for mode in MODES:
            hits = mrr = 0.0
            for question, topic in QUESTIONS:
                async with unit_of_work(live.app.state.services.db, write=False) as session:
                    search = KnowledgeSearch(
                        ChunkRepository(session),
                        live.app.state.services.knowledge.embedder,
                        "sqlite",
                    )
                    found = await search.search([f"room:{room['id']}"], question, 5, mode)
                ranked = [str(hit.document_id) for hit in found]
                if names[topic] in ranked:
                    hits += 1
                    mrr += 1 / (ranked.index(names[topic]) + 1)
            scores[mode] = (hits / len(QUESTIONS), mrr / len(QUESTIONS))
        return scores
