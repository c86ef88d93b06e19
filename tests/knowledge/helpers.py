"""Knowledge test helpers: upload files and wait for ingest, through the HTTP API."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx


async def upload(
    client: httpx.AsyncClient, place: str, name: str, data: bytes, expect: int = 202
) -> dict[str, Any]:
    """POST ``data`` as multipart ``file`` to ``/v1/{place}/documents``."""
    response = await client.post(f"/v1/{place}/documents", files={"file": (name, data)})
    assert response.status_code == expect, response.text
    body: dict[str, Any] = response.json()
    return body


async def settled(
    client: httpx.AsyncClient, document_id: str, timeout_s: float = 60.0
) -> dict[str, Any]:
    """Poll the document until ingest left ``pending``; fail the test past ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        response = await client.get(f"/v1/documents/{document_id}")
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        if body["status"] != "pending":
            return body
        await asyncio.sleep(0.02)
    raise AssertionError(f"document {document_id} still pending after {timeout_s} s")


async def ingested(client: httpx.AsyncClient, place: str, name: str, data: bytes) -> dict[str, Any]:
    """Upload and wait until ready (asserting it did not fail)."""
    document = await settled(client, (await upload(client, place, name, data))["id"])
    assert document["status"] == "ready", document
    return document


async def search(
    client: httpx.AsyncClient, place: str, q: str, limit: int = 5
) -> list[dict[str, Any]]:
    response = await client.get(f"/v1/{place}/knowledge/search", params={"q": q, "limit": limit})
    assert response.status_code == 200, response.text
    items: list[dict[str, Any]] = response.json()["items"]
    return items
