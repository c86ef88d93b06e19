"""Ingest ends every document: pending ones resume on the next start, and a parse past its
timeout fails the document (its parser process is killed) without stopping later ones."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx

from pantheon.settings import Settings
from tests.app_factory import running_app
from tests.factories import create_room
from tests.knowledge.helpers import settled, upload


@asynccontextmanager
async def _server(settings: Settings, *, ingest: bool) -> AsyncIterator[httpx.AsyncClient]:
    async with running_app(settings) as started:
        if not ingest:  # a process that dies before its worker gets to the documents
            await started.app.state.services.knowledge.ingest.stop()
        yield started.http


async def test_pending_documents_resume_on_startup(settings: Settings) -> None:
    async with _server(settings, ingest=False) as client:
        room = await create_room(client)
        kept = await upload(client, f"rooms/{room['id']}", "kept.txt", b"Resumed after restart.")
        lost = await upload(client, f"rooms/{room['id']}", "lost.txt", b"Its file disappears.")
        assert (await client.get(f"/v1/documents/{kept['id']}")).json()["status"] == "pending"
    (settings.data_dir / "documents" / lost["id"]).unlink()
    async with _server(settings, ingest=True) as client:
        resumed = await settled(client, kept["id"])
        assert resumed["status"] == "ready"
        failed = await settled(client, lost["id"])
        assert failed["status"] == "failed"
        assert "stored file is missing" in failed["error"]


async def test_parse_past_the_timeout_fails_and_the_next_parse_works(settings: Settings) -> None:
    knowledge = settings.knowledge.model_copy(update={"parse_timeout_s": 0.001})
    async with _server(settings.model_copy(update={"knowledge": knowledge}), ingest=True) as client:
        room = await create_room(client)
        # 60k CSV rows: far more than 1 ms of parsing, even in a warm child process
        rows = b"".join(b"%d,row number %d,x\n" % (i, i) for i in range(60_000))
        slow = await upload(client, f"rooms/{room['id']}", "slow.csv", b"id,name,flag\n" + rows)
        failed = await settled(client, slow["id"])
        assert failed["status"] == "failed"
        assert failed["error"] == "parsing took longer than 0.001 s"
    async with _server(settings, ingest=True) as client:
        room = await create_room(client)
        fine = await upload(client, f"rooms/{room['id']}", "fine.txt", b"Parsed by a new child.")
        done = await settled(client, fine["id"])
        assert done["status"] == "ready", done["error"]
