"""Rooms and rosters through the HTTP API."""

from __future__ import annotations

import uuid

import httpx

from tests.factories import create_agent, create_room, create_session


async def test_room_roundtrip_and_fields(client: httpx.AsyncClient) -> None:
    room = await create_room(client, description="d", mode="orchestrator")
    assert room["mode"] == "orchestrator"
    assert room["agents"] == []
    assert set(room) >= {"id", "name", "description", "mode", "manager_model", "agents"}
    assert (await client.get(f"/v1/rooms/{room['id']}")).json() == room


async def test_room_validation(client: httpx.AsyncClient) -> None:
    assert (await client.post("/v1/rooms", json={"name": ""})).status_code == 422
    bad_mode = await client.post("/v1/rooms", json={"name": "r", "mode": "chaos"})
    assert bad_mode.status_code == 422
    bad_model = await client.post("/v1/rooms", json={"name": "r", "manager_model": "zzz"})
    assert bad_model.status_code == 422
    assert "zzz" in bad_model.json()["detail"]
    assert (await client.get("/v1/rooms")).json()["total"] == 0


async def test_patch_room(client: httpx.AsyncClient) -> None:
    room = await create_room(client)
    response = await client.patch(
        f"/v1/rooms/{room['id']}", json={"name": "Renamed", "mode": "manual"}
    )
    assert response.json()["name"] == "Renamed"
    assert response.json()["mode"] == "manual"
    assert (await client.patch(f"/v1/rooms/{room['id']}", json={"name": None})).status_code == 422


async def test_roster_positions_auto_increment_and_insert(client: httpx.AsyncClient) -> None:
    room = await create_room(client, ["a", "b"])
    assert [(m["key"], m["position"]) for m in room["agents"]] == [("a", 0), ("b", 1)]
    c = await create_agent(client, "c")
    inserted = await client.post(
        f"/v1/rooms/{room['id']}/agents", json={"agent_id": c["id"], "position": 0}
    )
    assert [m["key"] for m in inserted.json()["agents"]] == ["c", "a", "b"]


async def test_same_agent_twice_is_409(client: httpx.AsyncClient) -> None:
    room = await create_room(client, ["a"])
    agent_id = room["agents"][0]["agent_id"]
    response = await client.post(f"/v1/rooms/{room['id']}/agents", json={"agent_id": agent_id})
    assert response.status_code == 409
    assert "already" in response.json()["detail"]


async def test_roster_unknown_agent_or_room_is_404(client: httpx.AsyncClient) -> None:
    room = await create_room(client)
    missing = str(uuid.uuid4())
    response = await client.post(f"/v1/rooms/{room['id']}/agents", json={"agent_id": missing})
    assert response.status_code == 404
    agent = await create_agent(client, "x")
    response = await client.post(f"/v1/rooms/{missing}/agents", json={"agent_id": agent["id"]})
    assert response.status_code == 404


async def test_remove_member(client: httpx.AsyncClient) -> None:
    room = await create_room(client, ["a", "b"])
    a_id = room["agents"][0]["agent_id"]
    assert (await client.delete(f"/v1/rooms/{room['id']}/agents/{a_id}")).status_code == 204
    assert (await client.delete(f"/v1/rooms/{room['id']}/agents/{a_id}")).status_code == 404
    roster = (await client.get(f"/v1/rooms/{room['id']}")).json()["agents"]
    assert [m["key"] for m in roster] == ["b"]
    assert (await client.get(f"/v1/agents/{a_id}")).status_code == 200


async def test_deleted_room_and_its_sessions_are_404(client: httpx.AsyncClient) -> None:
    room = await create_room(client, ["a"])
    session = await create_session(client, room["id"])
    assert (await client.delete(f"/v1/rooms/{room['id']}")).status_code == 204
    assert (await client.get(f"/v1/rooms/{room['id']}")).status_code == 404
    assert (await client.get(f"/v1/sessions/{session['id']}")).status_code == 404
    assert (await client.get("/v1/rooms")).json()["total"] == 0
    assert (await client.post(f"/v1/rooms/{room['id']}/sessions")).status_code == 404
