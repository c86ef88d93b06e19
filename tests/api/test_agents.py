"""Agents through the HTTP API: create, validation, conflicts, update, soft delete, paging."""

from __future__ import annotations

import uuid

import httpx

from tests.factories import create_agent, create_room


async def test_create_and_read_agent_uses_default_model(client: httpx.AsyncClient) -> None:
    agent = await create_agent(client, "planner", tools=["calculator"])
    assert agent["model"] == "scripted"
    assert agent["tools"] == ["calculator"]
    fetched = (await client.get(f"/v1/agents/{agent['id']}")).json()
    assert fetched == agent
    assert set(agent) >= {"id", "key", "name", "role_prompt", "model", "tools", "created_at"}


async def test_unknown_model_alias_is_422_naming_known_aliases(client: httpx.AsyncClient) -> None:
    response = await client.post(
        "/v1/agents", json={"key": "a", "name": "A", "role_prompt": "r", "model": "gpt-9"}
    )
    assert response.status_code == 422
    assert "gpt-9" in response.json()["detail"]
    assert "scripted" in response.json()["detail"]
    assert (await client.get("/v1/agents")).json()["total"] == 0


async def test_duplicate_key_is_409_case_insensitive(client: httpx.AsyncClient) -> None:
    await create_agent(client, "critic")
    response = await client.post(
        "/v1/agents", json={"key": "Critic", "name": "Other", "role_prompt": "r"}
    )
    assert response.status_code == 409
    assert "critic" in response.json()["detail"].lower()


async def test_invalid_key_is_422(client: httpx.AsyncClient) -> None:
    response = await client.post(
        "/v1/agents", json={"key": "has space", "name": "A", "role_prompt": "r"}
    )
    assert response.status_code == 422


async def test_patch_agent(client: httpx.AsyncClient) -> None:
    agent = await create_agent(client, "writer")
    response = await client.patch(f"/v1/agents/{agent['id']}", json={"name": "Scribe"})
    assert response.status_code == 200
    assert response.json()["name"] == "Scribe"
    bad = await client.patch(f"/v1/agents/{agent['id']}", json={"model": "nope"})
    assert bad.status_code == 422
    null = await client.patch(f"/v1/agents/{agent['id']}", json={"name": None})
    assert null.status_code == 422
    assert (await client.get(f"/v1/agents/{agent['id']}")).json()["name"] == "Scribe"


async def test_patch_key_to_taken_key_is_409(client: httpx.AsyncClient) -> None:
    await create_agent(client, "one")
    two = await create_agent(client, "two")
    response = await client.patch(f"/v1/agents/{two['id']}", json={"key": "ONE"})
    assert response.status_code == 409


async def test_delete_agent_leaves_rosters_and_404s(client: httpx.AsyncClient) -> None:
    room = await create_room(client, ["alpha", "beta"])
    alpha_id = room["agents"][0]["agent_id"]
    assert (await client.delete(f"/v1/agents/{alpha_id}")).status_code == 204
    assert (await client.get(f"/v1/agents/{alpha_id}")).status_code == 404
    assert (await client.delete(f"/v1/agents/{alpha_id}")).status_code == 404
    roster = (await client.get(f"/v1/rooms/{room['id']}")).json()["agents"]
    assert [m["key"] for m in roster] == ["beta"]
    # the key is free again once its agent is deleted
    await create_agent(client, "alpha")


async def test_unknown_and_malformed_ids_are_404(client: httpx.AsyncClient) -> None:
    for ident in (str(uuid.uuid4()), "not-a-uuid"):
        response = await client.get(f"/v1/agents/{ident}")
        assert response.status_code == 404
        assert ident in response.json()["detail"]


async def test_list_is_paginated_with_total(client: httpx.AsyncClient) -> None:
    for i in range(5):
        await create_agent(client, f"agent{i}")
    page = (await client.get("/v1/agents", params={"limit": 2, "offset": 2})).json()
    assert page["total"] == 5
    assert page["limit"] == 2
    assert page["offset"] == 2
    assert [a["key"] for a in page["items"]] == ["agent2", "agent3"]
    assert (await client.get("/v1/agents", params={"limit": 0})).status_code == 422
