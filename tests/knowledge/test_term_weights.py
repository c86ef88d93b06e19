"""Keyword ranking weighs words by the searched place's own chunks: a word on every page
of a manual (its name) no longer lets the short pages dense in it win every question."""

from __future__ import annotations

import uuid

import httpx
from fastapi import FastAPI

from pantheon.db.uow import unit_of_work
from pantheon.knowledge.repository import ChunkRepository
from pantheon.knowledge.schemas import SearchHit
from pantheon.knowledge.search import KnowledgeSearch
from pantheon.knowledge.term_weights import rerank, tokens
from tests.factories import create_room
from tests.knowledge.helpers import ingested

TITLE = "# Acme\n\nAcme. The Acme manual, for Acme users of Acme."
PARTS = "\n\n".join(
    f"# Part {n}\n\nAcme function number {n} reads the values of the acme store." for n in range(8)
)
ANSWER = "# Limits\n\nThis version of acme does not handle the REAL type, nor dates."
# Another room's document, where "type" and "handle" are everywhere and "acme" nowhere
# (SQLite's bm25 took its word weights from every document in the table).
ELSEWHERE = "\n\n".join(
    f"# Note {n}\n\nEach handle has a type; type {n} of handle." for n in range(40)
)


async def test_a_word_on_every_page_does_not_decide_the_ranking(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    room, other = await create_room(client), await create_room(client)
    manual = "\n\n".join([TITLE, PARTS, ANSWER]).encode()
    await ingested(client, f"rooms/{room['id']}", "acme.md", manual)
    await ingested(client, f"rooms/{other['id']}", "notes.md", ELSEWHERE.encode())
    hits = await _keyword_hits(app, room["id"], "Which type does acme not handle?")
    assert hits[0].text.startswith("Limits\n")


# Three chunks match "alpha beta"; seventeen more of the same room match neither word.
# Weighed over the three alone, "alpha" (in two) counts for half of "beta" (in one) and
# the "beta" chunk wins; over the room's twenty chunks both words are rare and the chunk
# dense in "alpha" wins.
SECTIONS = [
    "alpha alpha alpha: the notes here.",
    "alpha: the notes of this part.",
    "beta: the notes of this part.",
    *["the notes of this part, nothing more."] * 17,
]


async def test_word_weights_count_every_chunk_of_the_room(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    room = await create_room(client)
    text = "\n\n".join(f"# Part {n}\n\n{body}" for n, body in enumerate(SECTIONS))
    await ingested(client, f"rooms/{room['id']}", "parts.md", text.encode())
    hits = await _keyword_hits(app, room["id"], "alpha beta")
    assert [hit.text.split("\n", 1)[1] for hit in hits] == [SECTIONS[0], SECTIONS[2], SECTIONS[1]]


def test_rerank_weighs_rare_words_over_common_ones() -> None:
    a, b, c = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    pool = [(a, "acme acme acme"), (b, "acme handles types"), (c, "acme only")]
    assert rerank(["acme", "types"], pool, total=3) == [b, a, c]
    assert rerank(["acme"], [], total=0) == []
    assert tokens("Zürich's ASN1_SUCCESS, ASN.1") == ["zurich", "s", "asn1", "success", "asn", "1"]


async def _keyword_hits(app: FastAPI, room_id: str, query: str) -> list[SearchHit]:
    """The top three keyword hits in the room, as the search tool gets them."""
    services = app.state.services
    async with unit_of_work(services.db, write=False) as session:
        search = KnowledgeSearch(
            ChunkRepository(session), services.knowledge.embedder, services.db.dialect
        )
        return await search.search([f"room:{room_id}"], query, 3, "keyword")
