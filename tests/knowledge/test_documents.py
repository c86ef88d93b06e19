"""The documents API through HTTP: upload (202), dedupe (200), list, get, delete, 404s."""

from __future__ import annotations

import httpx

from tests.factories import create_agent, create_room
from tests.knowledge.helpers import ingested, search, settled, upload

NOTES = b"The lighthouse keeper logs the weather every four hours.\n\nFog horns sound twice."


async def test_upload_is_accepted_then_ready_with_chunks(client: httpx.AsyncClient) -> None:
    room = await create_room(client)
    accepted = await upload(client, f"rooms/{room['id']}", "notes.txt", NOTES)
    assert accepted["status"] == "pending"
    assert accepted["room_id"] == room["id"]
    assert accepted["agent_id"] is None
    assert accepted["filename"] == "notes.txt"
    assert accepted["content_type"] == "text/plain"
    assert accepted["bytes"] == len(NOTES)
    assert len(accepted["sha256"]) == 64
    assert accepted["chunks"] == 0
    assert accepted["error"] is None
    document = await settled(client, accepted["id"])
    assert document["status"] == "ready"
    assert document["chunks"] == 1


async def test_same_bytes_same_place_is_200_with_the_existing_document(
    client: httpx.AsyncClient,
) -> None:
    room = await create_room(client)
    first = await upload(client, f"rooms/{room['id']}", "notes.txt", NOTES)
    again = await upload(client, f"rooms/{room['id']}", "renamed.txt", NOTES, expect=200)
    assert again["id"] == first["id"]
    assert again["filename"] == "notes.txt"
    other_room = await create_room(client)
    elsewhere = await upload(client, f"rooms/{other_room['id']}", "notes.txt", NOTES)
    assert elsewhere["id"] != first["id"]
    agent = await create_agent(client, "scribe")
    on_agent = await upload(client, f"agents/{agent['id']}", "notes.txt", NOTES)
    assert on_agent["agent_id"] == agent["id"]
    assert on_agent["room_id"] is None


async def test_list_is_paginated_per_place(client: httpx.AsyncClient) -> None:
    room = await create_room(client)
    agent = await create_agent(client, "scribe")
    for n in range(3):
        await upload(client, f"rooms/{room['id']}", f"n{n}.txt", NOTES + str(n).encode())
    await upload(client, f"agents/{agent['id']}", "mine.txt", NOTES)
    page = (await client.get(f"/v1/rooms/{room['id']}/documents?limit=2&offset=1")).json()
    assert page["total"] == 3
    assert page["limit"] == 2
    assert page["offset"] == 1
    assert [d["filename"] for d in page["items"]] == ["n1.txt", "n2.txt"]
    agent_page = (await client.get(f"/v1/agents/{agent['id']}/documents")).json()
    assert [d["filename"] for d in agent_page["items"]] == ["mine.txt"]


async def test_delete_removes_document_and_its_chunks(client: httpx.AsyncClient) -> None:
    room = await create_room(client)
    place = f"rooms/{room['id']}"
    document = await ingested(client, place, "notes.txt", NOTES)
    assert await search(client, place, "lighthouse keeper")
    deleted = await client.delete(f"/v1/documents/{document['id']}")
    assert deleted.status_code == 204
    assert (await client.get(f"/v1/documents/{document['id']}")).status_code == 404
    assert await search(client, place, "lighthouse keeper") == []
    assert (await client.delete(f"/v1/documents/{document['id']}")).status_code == 404
    # the bytes may come back as a new document
    assert (await upload(client, place, "notes.txt", NOTES))["id"] != document["id"]


async def test_unknown_places_and_documents_are_404(client: httpx.AsyncClient) -> None:
    missing = "00000000-0000-0000-0000-000000000000"
    for url in (f"/v1/rooms/{missing}/documents", "/v1/agents/not-an-id/documents"):
        response = await client.post(url, files={"file": ("a.txt", NOTES)})
        assert response.status_code == 404, response.text
        assert (await client.get(url)).status_code == 404
    for url in (f"/v1/documents/{missing}", "/v1/documents/nope"):
        response = await client.get(url)
        assert response.status_code == 404
        assert "document" in response.json()["detail"]
    room = await create_room(client)
    await client.delete(f"/v1/rooms/{room['id']}")
    gone = await client.post(f"/v1/rooms/{room['id']}/documents", files={"file": ("a.txt", NOTES)})
    assert gone.status_code == 404


async def test_missing_file_field_is_422_naming_it(client: httpx.AsyncClient) -> None:
    room = await create_room(client)
    response = await client.post(f"/v1/rooms/{room['id']}/documents", data={"other": "x"})
    assert response.status_code == 422
    assert "file" in response.text


async def test_file_names_are_reduced_to_a_safe_base_name(client: httpx.AsyncClient) -> None:
    room = await create_room(client)
    place = f"rooms/{room['id']}"
    traversal = await upload(client, place, "../../etc/evil.txt", b"one")
    assert traversal["filename"] == "evil.txt"
    windows = await upload(client, place, "C:\\temp\\ünï cødé.md", b"two")
    assert windows["filename"] == "ünï cødé.md"
    assert (await settled(client, windows["id"]))["status"] == "ready"
