"""``tools/list_changed``: a 2026-07-28 host listening (``subscriptions/listen``) hears
when its rooms and agents change, and lists the new tools; handshake revisions are told
no such notification comes."""

from __future__ import annotations

import asyncio

import anyio
import pytest
from fastapi import FastAPI
from mcp.client.subscriptions import Subscription
from mcp.server.subscriptions import ToolsListChanged
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import ServerEvent

from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.settings import McpSettings
from tests.factories import create_agent, create_room, create_session
from tests.mcp_server.conftest import mcp_client, mcp_client_at
from tests.sse import open_stream
from tests.turns_api.conftest import Serve

FAST = McpSettings(tools_poll_s=0.05)
HEARD_S = 30.0


async def _next(changes: Subscription) -> ServerEvent:
    return await asyncio.wait_for(anext(changes), HEARD_S)


async def test_a_listening_host_hears_rooms_and_agents_change(serve: Serve) -> None:
    async with serve(mcp=FAST) as live:
        await create_room(live.http, ["alpha"], name="Launch Team")
        async with mcp_client_at(live.url) as client:
            assert client.server_capabilities.tools is not None
            assert client.server_capabilities.tools.list_changed is True
            async with client.listen(tools_list_changed=True) as changes:
                assert changes.honored.tools_list_changed is True
                await create_room(live.http, name="Ops Desk")
                assert isinstance(await _next(changes), ToolsListChanged)
                names = {tool.name for tool in (await client.list_tools()).tools}
                assert {"room_launch_team", "room_ops_desk", "agent_alpha"} <= names

                await create_agent(live.http, "gamma")
                assert isinstance(await _next(changes), ToolsListChanged)
                names = {tool.name for tool in (await client.list_tools()).tools}
                assert "agent_gamma" in names


async def test_a_handshake_host_is_not_promised_list_changed(app: FastAPI) -> None:
    async with mcp_client(app, mode="legacy") as client:
        assert client.server_capabilities.tools is not None
        assert not client.server_capabilities.tools.list_changed


async def test_a_user_s_open_streams_are_bounded(serve: Serve) -> None:
    bounded = McpSettings(tools_poll_s=0.05, listen_streams_per_user=1)
    async with serve(mcp=bounded) as live, mcp_client_at(live.url) as client:
        async with client.listen(tools_list_changed=True):
            with pytest.raises(MCPError, match="Subscription limit reached"):
                async with client.listen(tools_list_changed=True):
                    pass
        async with client.listen(tools_list_changed=True) as again:  # the slot is free
            assert again.honored.tools_list_changed is True


async def test_a_stopping_server_closes_its_listen_streams_and_refuses_new_ones(
    serve: Serve, scripted: ScriptedProvider
) -> None:
    scripted.script(" ".join(["word"] * 100), agent="alpha", chunk_delay_s=0.5)
    async with serve(mcp=FAST) as live, mcp_client_at(live.url) as client:
        room = await create_room(live.http, ["alpha"], name="Team")
        session = (await create_session(live.http, room["id"]))["id"]
        turns = f"/v1/sessions/{session}/turns"
        async with (
            client.listen(tools_list_changed=True) as changes,
            open_stream(live.http, turns, method="POST", json={"message": "go"}) as turn,
        ):
            turn_id = (await turn.until("delta"))[0][1]["turn_id"]
            live.server.should_exit = True  # as SIGTERM; the running turn keeps it serving
            with anyio.fail_after(HEARD_S):
                heard = [event async for event in changes]  # ends: a graceful close
            with pytest.raises(MCPError, match="shutting down"):
                async with client.listen(tools_list_changed=True):
                    pass
            await live.http.post(f"/v1/turns/{turn_id}/cancel")
    assert heard == []
