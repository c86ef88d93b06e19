"""Ingest shares its workers: another room's small document is not stuck behind a big
one, deleting a document stops its embedding, and a stuck document fails at its deadline."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest
from asgi_lifespan import LifespanManager
from fastapi import FastAPI

from pantheon.main import create_app
from pantheon.settings import Settings
from tests.factories import create_room
from tests.knowledge.gated import GatedEmbedder
from tests.knowledge.helpers import settled, upload
from tests.waiting import until

MARKER = "slowpoke"
# Forty paragraphs of ~700 characters: many embedding batches, every one gated.
BIG = "\n\n".join(f"{MARKER} paragraph {n}. " + "Filler words here. " * 36 for n in range(40))


@pytest.fixture
def gated(app: FastAPI) -> GatedEmbedder:
    embedder = GatedEmbedder(MARKER)
    app.state.services.knowledge.ingest.embedder = embedder
    return embedder


async def _big_one_embedding(client: httpx.AsyncClient, gated: GatedEmbedder) -> tuple[str, str]:
    """Upload the big document to a new room; return (room id, document id) once its
    first batch waits in the embedder."""
    room = await create_room(client)
    big = await upload(client, f"rooms/{room['id']}", "big.txt", BIG.encode())
    await asyncio.wait_for(gated.waiting.wait(), 30)
    return str(room["id"]), str(big["id"])


async def test_another_rooms_small_document_is_ready_during_a_big_ingest(
    client: httpx.AsyncClient, gated: GatedEmbedder
) -> None:
    _, big = await _big_one_embedding(client, gated)
    other = await create_room(client)
    small = await upload(client, f"rooms/{other['id']}", "small.txt", b"Twenty-five bytes, tiny.")
    assert (await settled(client, small["id"], timeout_s=20))["status"] == "ready"
    assert (await client.get(f"/v1/documents/{big}")).json()["status"] == "pending"
    gated.release.set()
    assert (await settled(client, big))["status"] == "ready"


async def test_delete_during_ingest_stops_embedding(
    client: httpx.AsyncClient, gated: GatedEmbedder
) -> None:
    room, big = await _big_one_embedding(client, gated)
    assert (await client.delete(f"/v1/documents/{big}")).status_code == 204
    await until(lambda: gated.cancelled == 1, attempts=1000)
    assert gated.gated_batches == 1
    # the room's turn is free again: its next document is ingested
    after = await upload(client, f"rooms/{room}", "after.txt", b"Next in line.")
    assert (await settled(client, after["id"], timeout_s=20))["status"] == "ready"
    assert gated.gated_batches == 1


@pytest.fixture
async def short_deadline(settings: Settings) -> AsyncIterator[tuple[httpx.AsyncClient, FastAPI]]:
    knowledge = settings.knowledge.model_copy(update={"ingest_timeout_s": 0.5})
    app = create_app(settings.model_copy(update={"knowledge": knowledge}))
    async with LifespanManager(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
            yield http, app


async def test_a_stuck_document_fails_at_the_ingest_deadline(
    short_deadline: tuple[httpx.AsyncClient, FastAPI],
) -> None:
    client, app = short_deadline
    gated = GatedEmbedder(MARKER)  # never released
    app.state.services.knowledge.ingest.embedder = gated
    _, big = await _big_one_embedding(client, gated)
    failed = await settled(client, big, timeout_s=20)
    assert failed["status"] == "failed"
    assert failed["error"] == "ingest took longer than 0.5 s (knowledge.ingest_timeout_s)"
    assert gated.cancelled == 1
