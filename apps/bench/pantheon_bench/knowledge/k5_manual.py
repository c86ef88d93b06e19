"""K5: recall@5 on a real document: the libtasn1 manual and 22 questions about it.

The manual (``manual.MANUAL``, from the Debian package ``libtasn1-doc``) is uploaded as
one PDF; a question counts as found when a page that answers it is among the pages of the
first five passages. Each mode (hybrid, vector, keyword) on each embedder, on SQLite and
on PostgreSQL when reachable (the keyword rankers differ: FTS5 bm25 vs ts_rank). Skipped,
saying why, when the package is not installed.
"""

from __future__ import annotations

import asyncio

from pypdf import PdfReader

from pantheon.db.uow import unit_of_work
from pantheon.knowledge.repository import ChunkRepository
from pantheon.knowledge.search import KnowledgeSearch, Mode
from pantheon_bench.knowledge.app import Running, database, post, running, wait_ready
from pantheon_bench.knowledge.manual import MANUAL, PACKAGE, QUESTIONS, check
from pantheon_bench.results import BenchResult, Row, fmt

MODES: tuple[Mode, ...] = ("hybrid", "vector", "keyword")


async def run(embedders: list[str], backends: list[str]) -> BenchResult:
    title = f"Retrieval recall@5 on a real manual ({len(QUESTIONS)} questions)"
    result = BenchResult("K5", title, "keyword-only")
    if not MANUAL.exists():
        result.skipped = f"{MANUAL} missing: apt-get install {PACKAGE}"
        return result
    for backend in backends:
        for embedder in embedders:
            scores = await measure(embedder, backend)
            base = scores["keyword"][0]
            for mode in MODES:
                recall, mrr = scores[mode]
                result.rows.append(Row(f"{backend}, {embedder} embedder", f"{mode} recall@5 / MRR",
                                       f"{fmt(recall)} / {fmt(mrr)}", fmt(base),
                                       f"{recall - base:+.2f}"))  # fmt: skip
            raw = {m: {"recall@5": r, "mrr@5": q} for m, (r, q) in scores.items()}
            result.raw[f"{backend}/{embedder}"] = raw
    return result


async def measure(embedder: str, backend: str = "sqlite") -> dict[str, tuple[float, float]]:
    """Recall@5 and MRR@5 per mode."""
    await asyncio.to_thread(_check_edition)
    async with database(backend) as url, running(url, embedder) as live:
        room = await post(live.http, "/v1/rooms", json={"name": "k5"})
        files = {"file": (MANUAL.name, MANUAL.read_bytes())}
        document = await post(live.http, f"/v1/rooms/{room['id']}/documents", files=files)
        await wait_ready(live.http, document["id"])
        place = f"room:{room['id']}"
        return {mode: await _score(live, place, mode) for mode in MODES}


async def _score(live: Running, place: str, mode: Mode) -> tuple[float, float]:
    hits = mrr = 0.0
    for question, pages, _ in QUESTIONS:
        async with unit_of_work(live.app.state.services.db, write=False) as session:
            search = KnowledgeSearch(
                ChunkRepository(session),
                live.app.state.services.knowledge.embedder,
                live.app.state.services.db.dialect,
            )
            found = await search.search([place], question, 5, mode)
        ranks = [n for n, hit in enumerate(found, start=1) if hit.page in pages]
        if ranks:
            hits += 1
            mrr += 1 / ranks[0]
    return hits / len(QUESTIONS), mrr / len(QUESTIONS)


def _check_edition() -> None:
    """The questions' phrases are on their pages of the installed edition."""
    pages = PdfReader(MANUAL).pages
    check({n: page.extract_text() or "" for n, page in enumerate(pages, start=1)})
