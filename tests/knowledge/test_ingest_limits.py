"""Ingest always ends a document: a chunk too big for PostgreSQL's tsvector is still stored,
and a write that fails marks the document failed instead of leaving it pending forever."""

from __future__ import annotations

from collections.abc import Sequence

import httpx
import pytest
from sqlalchemy.exc import DataError

from pantheon.db.models import Chunk
from pantheon.knowledge.repository import DocumentRepository
from tests.factories import create_room
from tests.knowledge.helpers import search, settled, upload


def _distinct_words(count: int) -> str:
    """``count`` different words (no two alike, so nothing merges in the tsvector)."""
    return " ".join(f"w{n}x" for n in range(count))


@pytest.mark.parametrize("backend", [pytest.param("postgres", marks=pytest.mark.postgres)])
async def test_a_megabyte_of_distinct_words_is_stored(client: httpx.AsyncClient) -> None:
    room = await create_room(client)
    # one Markdown heading line of ~1 MB (130k distinct words): its chunk repeats it
    data = ("# " + _distinct_words(130_000) + "\n\nThe body mentions quokkas.\n").encode()
    assert len(data) > 900_000
    accepted = await upload(client, f"rooms/{room['id']}", "big.md", data)
    document = await settled(client, accepted["id"])
    assert document["status"] == "ready", document["error"]
    hits = await search(client, f"rooms/{room['id']}", "quokkas")
    assert [hit["document_id"] for hit in hits] == [document["id"]]


async def test_a_failed_write_ends_the_document_failed(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def refuse(
        self: DocumentRepository, document_id: object, chunks: Sequence[Chunk]
    ) -> None:
        raise DataError("INSERT INTO chunks ...", {}, Exception("string is too long for tsvector"))

    monkeypatch.setattr(DocumentRepository, "replace_chunks", refuse)
    room = await create_room(client)
    accepted = await upload(client, f"rooms/{room['id']}", "notes.txt", b"Cannot be stored.")
    document = await settled(client, accepted["id"], timeout_s=20)
    assert document["status"] == "failed"
    assert document["error"] == "could not store the chunks: string is too long for tsvector"
    assert document["chunks"] == 0
