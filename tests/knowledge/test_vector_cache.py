"""The per-place vector cache: reused while nothing changed, reloaded when documents
change, bounded in bytes."""

from __future__ import annotations

import uuid

import httpx
import numpy as np
from fastapi import FastAPI

from pantheon.db.uow import unit_of_work
from pantheon.knowledge.repository import ChunkRepository
from pantheon.knowledge.search import KnowledgeSearch
from pantheon.knowledge.vector_cache import PlaceVectors, VectorCache
from tests.factories import create_room
from tests.knowledge.helpers import ingested


async def _vector_search(app: FastAPI, room_id: str, query: str) -> list[str]:
    services = app.state.services
    async with unit_of_work(services.db, write=False) as session:
        search = KnowledgeSearch(
            ChunkRepository(session), services.knowledge.embedder, services.db.dialect,
            services.knowledge.vector_cache,
        )  # fmt: skip
        hits = await search.search([f"room:{room_id}"], query, 5, mode="vector")
    return [hit.filename for hit in hits]


async def test_cache_follows_uploads_and_deletes(app: FastAPI, client: httpx.AsyncClient) -> None:
    room = await create_room(client)
    place = f"rooms/{room['id']}"
    cache: VectorCache = app.state.services.knowledge.vector_cache
    await ingested(client, place, "moon.txt", b"The Moon has craters and no air.")
    assert await _vector_search(app, room["id"], "lunar craters") == ["moon.txt"]
    key = (f"room:{room['id']}", app.state.services.knowledge.embedder.ident)
    first = cache._entries[key]
    assert await _vector_search(app, room["id"], "moon") == ["moon.txt"]
    assert cache._entries[key] is first  # nothing changed: reused

    mars = await ingested(client, place, "mars.txt", b"Mars has red dust and two small moons.")
    assert "mars.txt" in await _vector_search(app, room["id"], "red dust on mars")
    assert len(cache._entries[key].ids) == 2

    assert (await client.delete(f"/v1/documents/{mars['id']}")).status_code == 204
    assert await _vector_search(app, room["id"], "red dust on mars") == ["moon.txt"]
    assert len(cache._entries[key].ids) == 1


def test_cache_evicts_least_recently_used_past_its_budget() -> None:
    def entry(rows: int) -> PlaceVectors:
        ids = [uuid.uuid4() for _ in range(rows)]
        return PlaceVectors((rows,), ids, np.zeros((rows, 4), dtype=np.float32))

    size = entry(10).nbytes
    cache = VectorCache(max_bytes=2 * size)
    a, b, c = ((p, "e") for p in ("a", "b", "c"))
    cache.put(a, entry(10))
    cache.put(b, entry(10))
    assert cache.get(a, (10,)) is not None  # a is now the most recent
    assert cache.get(a, (11,)) is None  # another fingerprint: stale
    cache.put(c, entry(10))
    assert cache.get(b, (10,)) is None
    assert cache.get(a, (10,)) is not None
    cache.put(b, entry(1000))  # larger than the whole budget: not kept
    assert cache.get(b, (1000,)) is None
