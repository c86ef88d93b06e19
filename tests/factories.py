"""Builders that create resources through the public API, the way a client would."""

from __future__ import annotations

from typing import Any

import httpx

# A well-formed id no row has: fixed, so parallel test workers collect the same test ids.
UNKNOWN_ID = "00000000-0000-4000-8000-000000000000"


async def create_agent(client: httpx.AsyncClient, key: str, **fields: Any) -> dict[str, Any]:
    body = {"key": key, "name": key.title(), "role_prompt": f"You are {key}.", **fields}
    response = await client.post("/v1/agents", json=body)
    assert response.status_code == 201, response.text
    agent: dict[str, Any] = response.json()
    return agent


async def create_room(
    client: httpx.AsyncClient, agent_keys: list[str] | None = None, **fields: Any
) -> dict[str, Any]:
    response = await client.post("/v1/rooms", json={"name": "Room", **fields})
    assert response.status_code == 201, response.text
    room: dict[str, Any] = response.json()
    for key in agent_keys or []:
        agent = await create_agent(client, key)
        room = await add_to_room(client, room["id"], agent["id"])
    return room


async def add_to_room(client: httpx.AsyncClient, room_id: str, agent_id: str) -> dict[str, Any]:
    """Append the agent to the room's roster; the room as it is now."""
    added = await client.post(f"/v1/rooms/{room_id}/agents", json={"agent_id": agent_id})
    assert added.status_code == 201, added.text
    room: dict[str, Any] = added.json()
    return room


async def create_session(client: httpx.AsyncClient, room_id: str) -> dict[str, Any]:
    response = await client.post(f"/v1/rooms/{room_id}/sessions", json={"title": "t"})
    assert response.status_code == 201, response.text
    session: dict[str, Any] = response.json()
    return session
