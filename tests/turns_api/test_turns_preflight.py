"""Preflight errors: plain HTTP errors before any LLM call, with nothing persisted."""

from __future__ import annotations

import uuid

import httpx
import pytest

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.factories import create_agent, create_room, create_session


async def _nothing_happened(
    client: httpx.AsyncClient, scripted: ScriptedProvider, session_id: str
) -> None:
    assert scripted.requests == []
    assert (await client.get(f"/v1/sessions/{session_id}/turns")).json()["total"] == 0
    assert (await client.get(f"/v1/sessions/{session_id}/messages")).json()["total"] == 0


@pytest.mark.parametrize("stream", [False, True])
async def test_manual_without_valid_mention_is_422_naming_keys(
    client: httpx.AsyncClient, scripted: ScriptedProvider, stream: bool
) -> None:
    room = await create_room(client, ["alpha", "beta"], mode="manual")
    session = await create_session(client, room["id"])
    response = await client.post(
        f"/v1/sessions/{session['id']}/turns",
        params={"stream": stream},
        json={"message": "hello @nobody and mail a@alpha.com"},
    )
    assert response.status_code == 422
    assert "@alpha" in response.json()["detail"]
    assert "@beta" in response.json()["detail"]
    assert response.json()["room_keys"] == ["alpha", "beta"]
    await _nothing_happened(client, scripted, session["id"])


async def test_empty_roster_is_422(client: httpx.AsyncClient, scripted: ScriptedProvider) -> None:
    room = await create_room(client)
    session = await create_session(client, room["id"])
    response = await client.post(f"/v1/sessions/{session['id']}/turns", json={"message": "hi"})
    assert response.status_code == 422
    assert "no agents" in response.json()["detail"]
    await _nothing_happened(client, scripted, session["id"])


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ({"message": "hi", "mode": "chaos"}, "mode"),
        ({"message": ""}, "message"),
        ({"mode": "roundtable"}, "message"),
        ({"message": "hi", "mode": "standalone"}, "standalone"),
    ],
)
async def test_bad_request_bodies_are_422(
    client: httpx.AsyncClient, scripted: ScriptedProvider, body: dict[str, str], fragment: str
) -> None:
    room = await create_room(client, ["alpha"])
    session = await create_session(client, room["id"])
    response = await client.post(f"/v1/sessions/{session['id']}/turns", json=body)
    assert response.status_code == 422
    assert fragment in response.text
    await _nothing_happened(client, scripted, session["id"])


async def test_message_over_the_limit_is_422(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    room = await create_room(client, ["alpha"])
    session = await create_session(client, room["id"])
    limit = 32_000
    response = await client.post(
        f"/v1/sessions/{session['id']}/turns", json={"message": "x" * (limit + 1)}
    )
    assert response.status_code == 422
    assert str(limit) in response.json()["detail"]
    await _nothing_happened(client, scripted, session["id"])


async def test_standalone_session_rejects_room_modes(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    agent = await create_agent(client, "solo")
    session = (await client.post(f"/v1/agents/{agent['id']}/sessions")).json()
    response = await client.post(
        f"/v1/sessions/{session['id']}/turns", json={"message": "hi", "mode": "roundtable"}
    )
    assert response.status_code == 422
    assert "standalone" in response.json()["detail"]
    await _nothing_happened(client, scripted, session["id"])


async def test_unknown_session_and_turn_are_404(client: httpx.AsyncClient) -> None:
    missing = str(uuid.uuid4())
    response = await client.post(f"/v1/sessions/{missing}/turns", json={"message": "hi"})
    assert response.status_code == 404
    assert missing in response.json()["detail"]
    assert (await client.get(f"/v1/sessions/{missing}/turns")).status_code == 404
    assert (await client.get(f"/v1/turns/{missing}")).status_code == 404
    assert (await client.get("/v1/turns/not-a-uuid")).status_code == 404


async def test_deleted_room_session_cannot_take_turns(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    room = await create_room(client, ["alpha"])
    session = await create_session(client, room["id"])
    await client.delete(f"/v1/rooms/{room['id']}")
    response = await client.post(f"/v1/sessions/{session['id']}/turns", json={"message": "hi"})
    assert response.status_code == 404
    assert scripted.requests == []
