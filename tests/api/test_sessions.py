"""Sessions through the HTTP API: in rooms, standalone, listing, messages of a new session."""

from __future__ import annotations

import uuid

import httpx

from tests.factories import create_agent, create_room, create_session


async def test_room_session_roundtrip(client: httpx.AsyncClient) -> None:
    room = await create_room(client, ["a"])
    session = await create_session(client, room["id"])
    assert session["room_id"] == room["id"]
    assert session["agent_id"] is None
    assert (await client.get(f"/v1/sessions/{session['id']}")).json() == session
    messages = (await client.get(f"/v1/sessions/{session['id']}/messages")).json()
    assert messages == {"items": [], "total": 0, "limit": 50, "offset": 0}


async def test_standalone_session(client: httpx.AsyncClient) -> None:
    agent = await create_agent(client, "solo")
    response = await client.post(f"/v1/agents/{agent['id']}/sessions", json={"title": "hi"})
    assert response.status_code == 201
    assert response.json()["agent_id"] == agent["id"]
    assert response.json()["room_id"] is None
    listed = (await client.get(f"/v1/agents/{agent['id']}/sessions")).json()
    assert [s["id"] for s in listed["items"]] == [response.json()["id"]]
    assert listed["total"] == 1
    await client.delete(f"/v1/agents/{agent['id']}")
    assert (await client.get(f"/v1/sessions/{response.json()['id']}")).status_code == 404


async def test_list_room_sessions_newest_first(client: httpx.AsyncClient) -> None:
    room = await create_room(client)
    first = await create_session(client, room["id"])
    second = await create_session(client, room["id"])
    page = (await client.get(f"/v1/rooms/{room['id']}/sessions")).json()
    assert page["total"] == 2
    assert {s["id"] for s in page["items"]} == {first["id"], second["id"]}
    missing = await client.get(f"/v1/rooms/{uuid.uuid4()}/sessions")
    assert missing.status_code == 404


async def test_session_create_errors(client: httpx.AsyncClient) -> None:
    assert (await client.post(f"/v1/agents/{uuid.uuid4()}/sessions")).status_code == 404
    assert (await client.get(f"/v1/agents/{uuid.uuid4()}/sessions")).status_code == 404
    room = await create_room(client)
    long_title = await client.post(f"/v1/rooms/{room['id']}/sessions", json={"title": "x" * 300})
    assert long_title.status_code == 422
    assert (await client.get(f"/v1/sessions/{uuid.uuid4()}/messages")).status_code == 404
