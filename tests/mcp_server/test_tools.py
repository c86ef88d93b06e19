"""``tools/list`` through the official SDK client: one tool per room and per agent, named,
described and typed as docs/mcp-server.md says, as they are at list time."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from pantheon.engine.modes.specs import ROOM_MODES
from tests.factories import create_agent, create_room
from tests.mcp_server.conftest import mcp_client


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_rooms_and_agents_are_tools(
    app: FastAPI, client: httpx.AsyncClient, mode: str
) -> None:
    await create_room(client, ["alpha", "beta"], name="Launch Team", description="Plans launches.")
    async with mcp_client(app, mode=mode) as mcp:
        listed = (await mcp.list_tools()).tools
        version = mcp.protocol_version

    assert version == ("2026-07-28" if mode == "auto" else "2025-11-25")
    tools = {t.name: t for t in listed}
    assert list(tools) == ["room_launch_team", "agent_alpha", "agent_beta"]
    room = tools["room_launch_team"]
    assert room.description is not None
    assert room.description.startswith("Plans launches.")
    assert "Alpha (@alpha), Beta (@beta)" in room.description
    assert room.input_schema["required"] == ["message"]
    assert set(room.input_schema["properties"]) == {"message", "mode", "session_id"}
    mode_schema = room.input_schema["properties"]["mode"]["anyOf"][0]
    assert tuple(mode_schema["enum"]) == ROOM_MODES
    agent = tools["agent_alpha"]
    assert set(agent.input_schema["properties"]) == {"message", "session_id"}
    assert agent.output_schema is not None
    assert "session_id" in agent.output_schema["properties"]


async def test_colliding_and_unsluggable_names_get_their_id(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    first = await create_room(client, name="Launch team")
    second = await create_room(client, name="launch-TEAM!")
    third = await create_room(client, name="会議室")
    await create_room(client, name="Café Crème")
    async with mcp_client(app) as mcp:
        names = [t.name for t in (await mcp.list_tools()).tools]

    assert names == [
        f"room_launch_team_{first['id'].replace('-', '')[:8]}",
        f"room_launch_team_{second['id'].replace('-', '')[:8]}",
        f"room_{third['id'].replace('-', '')[:8]}",
        "room_cafe_creme",
    ]


async def test_the_list_is_the_rooms_at_list_time(app: FastAPI, client: httpx.AsyncClient) -> None:
    room = await create_room(client, name="Old")
    async with mcp_client(app) as mcp:
        before = [t.name for t in (await mcp.list_tools()).tools]
        assert (await client.delete(f"/v1/rooms/{room['id']}")).status_code == 204
        await create_room(client, name="New")
        await create_agent(client, "gamma")
        after = [t.name for t in (await mcp.list_tools()).tools]

    assert before == ["room_old"]
    assert after == ["room_new", "agent_gamma"]
