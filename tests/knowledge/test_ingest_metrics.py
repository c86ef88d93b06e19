"""Ingest metrics: documents waiting for a worker (a gauge) and ingests by outcome."""

from __future__ import annotations

import asyncio

import httpx
from fastapi import FastAPI

from tests.factories import create_room
from tests.knowledge.gated import GatedEmbedder
from tests.knowledge.helpers import settled, upload
from tests.observability.scrape import grown, scrape, total

MARKER = "slowpoke"


async def test_queued_documents_and_outcomes_are_counted(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    gated = GatedEmbedder(MARKER)
    app.state.services.knowledge.ingest.embedder = gated
    place = f"rooms/{(await create_room(client))['id']}"
    before = await scrape(client)
    first = await upload(client, place, "first.txt", f"{MARKER} holds the room.".encode())
    await asyncio.wait_for(gated.waiting.wait(), 30)
    second = await upload(client, place, "second.txt", b"Waits for the first, same room.")
    during = await scrape(client)  # one place ingests one document at a time
    gated.release.set()
    assert (await settled(client, first["id"]))["status"] == "ready"
    assert (await settled(client, second["id"]))["status"] == "ready"
    broken = await upload(client, place, "broken.docx", b"PK\x03\x04 not really a zip")
    assert (await settled(client, broken["id"]))["status"] == "failed"
    after = await scrape(client)
    assert total(during, "pantheon_knowledge_ingest_queued") == 1
    assert total(after, "pantheon_knowledge_ingest_queued") == 0
    assert grown(before, after, "pantheon_knowledge_ingest_documents_total", outcome="ready") == 2
    assert grown(before, after, "pantheon_knowledge_ingest_documents_total", outcome="failed") == 1
