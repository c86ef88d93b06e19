"""Bad calls get MCP's answers, never a server error: an unknown tool is a protocol error
(``INVALID_PARAMS``); what the calling model can correct (arguments, sessions, a busy
session, a spent budget, a failed turn) is a tool result with ``isError`` naming it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from mcp import MCPError
from mcp_types import INVALID_PARAMS

from pantheon.llm.errors import Unavailable
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.settings import LimitSettings, Settings
from tests.auth.conftest import MakeClients
from tests.budgets.conftest import METERED_TOML, metered_room, set_budget
from tests.factories import create_agent, create_room, create_session
from tests.mcp_server.conftest import http_for, mcp_client
from tests.mcp_server.test_calls import structured, text
from tests.turns_api.conftest import Serve

ACCEPT = {"Accept": "application/json, text/event-stream"}


async def test_an_unknown_tool_is_a_protocol_error(app: FastAPI, client: httpx.AsyncClient) -> None:
    await create_room(client, name="Team")
    async with mcp_client(app) as mcp:
        with pytest.raises(MCPError) as raised:
            await mcp.call_tool("room_nobody", {"message": "hi"})

    assert raised.value.code == INVALID_PARAMS
    assert "Unknown tool: room_nobody" in raised.value.message


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        ({}, "message: Field required"),
        ({"message": "   "}, "message: Value error, message has no text"),
        ({"message": "hi", "mode": "chaos"}, "mode: Input should be 'manual', 'roundtable'"),
        ({"message": "hi", "colour": "red"}, "colour: Extra inputs are not permitted"),
        ({"message": 7}, "message: Input should be a valid string"),
        ({"message": "hi", "session_id": ""}, "session_id: String should have at least 1"),
    ],
)
async def test_bad_arguments_are_an_error_result(
    app: FastAPI, client: httpx.AsyncClient, arguments: dict[str, Any], named: str
) -> None:
    await create_room(client, ["alpha"], name="Team")
    async with mcp_client(app) as mcp:
        result = await mcp.call_tool("room_team", arguments)

    assert result.is_error
    assert text(result).startswith("invalid arguments: ")
    assert named in text(result)


async def test_an_agent_tool_takes_no_mode(app: FastAPI, client: httpx.AsyncClient) -> None:
    await create_agent(client, "alpha")
    async with mcp_client(app) as mcp:
        result = await mcp.call_tool("agent_alpha", {"message": "hi", "mode": "manual"})

    assert result.is_error
    assert "mode: Extra inputs are not permitted" in text(result)


async def test_sessions_that_are_not_the_tools_are_error_results(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    room = await create_room(client, ["alpha"], name="Team")
    other = await create_room(client, ["beta"], name="Other")
    elsewhere = await create_session(client, other["id"])
    async with mcp_client(app) as mcp:
        unknown = await mcp.call_tool("room_team", {"message": "hi", "session_id": "nope"})
        wrong = await mcp.call_tool("room_team", {"message": "hi", "session_id": elsewhere["id"]})

    assert unknown.is_error
    assert text(unknown) == "session nope (session_id) not found (404 not_found)"
    assert wrong.is_error
    assert f"belongs to room {other['id']}, not to room_team (422" in text(wrong)
    sessions = await client.get(f"/v1/rooms/{room['id']}/sessions")
    assert sessions.json()["total"] == 0


async def test_a_busy_session_is_an_error_result(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    room = await create_room(client, ["alpha"], name="Team")
    session = await create_session(client, room["id"])
    # Held until cancelled below: a timed delay could end on a loaded machine before the
    # MCP call arrives, and then nothing is busy.
    scripted.script("slow", agent="alpha", delay_s=120)
    url = f"/v1/sessions/{session['id']}/turns"
    native = asyncio.create_task(client.post(url, json={"message": "first"}))
    for _ in range(500):  # the turn is registered within a few event-loop iterations
        if running := app.state.services.live_turns.running():
            break
        await asyncio.sleep(0.01)
    async with mcp_client(app) as mcp:
        result = await mcp.call_tool("room_team", {"message": "hi", "session_id": session["id"]})
    cancelled = await client.post(f"/v1/turns/{running[0].turn_id}/cancel")

    assert result.is_error
    assert "already has a running turn" in text(result)
    assert "(409 " in text(result)
    assert cancelled.status_code == 200
    assert (await native).status_code == 201


async def test_a_failed_turn_is_an_error_result_with_its_record(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    await create_agent(client, "alpha")
    scripted.script(error=Unavailable("down"), agent="alpha")
    async with mcp_client(app) as mcp:
        result = await mcp.call_tool("agent_alpha", {"message": "hi"})

    assert result.is_error
    outcome = structured(result)
    assert outcome["status"] == "failed"
    assert f"turn {outcome['turn_id']} failed: Alpha failed" in text(result)


async def test_a_rate_limited_call_is_an_error_result(
    make_clients: MakeClients, scripted: ScriptedProvider
) -> None:
    users = await make_clients(limits=LimitSettings(turns_per_minute=1))
    await create_agent(users.alice, "alpha")
    async with mcp_client(users.app, users.keys["alice"]) as mcp:
        first = await mcp.call_tool("agent_alpha", {"message": "one"})
        second = await mcp.call_tool("agent_alpha", {"message": "two"})

    assert not first.is_error
    assert second.is_error
    assert "turn rate limit reached: 1 turns per minute" in text(second)


class TestBudget:
    @pytest.fixture
    def settings(self, settings: Settings, tmp_path: Path) -> Settings:
        models_file = tmp_path / "models.toml"
        models_file.write_text(METERED_TOML)
        return settings.model_copy(update={"models_file": models_file})

    async def test_a_spent_budget_is_an_error_result(
        self, app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider
    ) -> None:
        room_id = await metered_room(client, ["alpha"], mode="roundtable")
        me = (await client.get("/v1/admin/users")).json()["items"][0]["id"]
        await set_budget(client, me, monthly_usd=0)
        async with mcp_client(app) as mcp:
            tools = [t.name for t in (await mcp.list_tools()).tools]
            result = await mcp.call_tool(tools[0], {"message": "hi"})

        assert result.is_error
        assert "monthly budget of $0.00 is spent" in text(result)
        assert "(402 " in text(result)
        assert scripted.requests == []
        sessions = await client.get(f"/v1/rooms/{room_id}/sessions")
        assert sessions.json()["total"] == 0


async def test_a_malformed_request_is_a_jsonrpc_error_not_a_5xx(app: FastAPI) -> None:
    headers = {**ACCEPT, "Content-Type": "application/json"}
    async with http_for(app) as http:
        response = await http.post("/mcp", content=b"{not json", headers=headers)

    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32700


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        (b"\xff\xfe\x00garbage", 400, -32700),  # not UTF-8, not JSON
        (b"[1, 2]", 400, -32602),  # JSON, but no JSON-RPC message (the SDK's code)
        (b'{"jsonrpc": "2.0", "id": 1}', 400, -32602),
        (b'{"jsonrpc": "1.0", "id": 1, "method": "ping"}', 400, -32602),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "nope/x"}', 200, -32601),
        (
            b'{"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"taskId": "t"}}',
            200,
            -32601,
        ),
    ],
)
async def test_a_garbled_or_unknown_message_is_a_jsonrpc_error(
    serve: Serve, body: bytes, status: int, code: int
) -> None:
    headers = {**ACCEPT, "Content-Type": "application/json", "MCP-Protocol-Version": "2025-11-25"}
    async with serve() as live:
        response = await live.http.post("/mcp", content=body, headers=headers)

    assert response.status_code == status
    if status == 200:  # an answer to a request: the error rides the response stream
        frame = next(line for line in response.text.splitlines() if line.startswith("data: "))
        error = json.loads(frame.removeprefix("data: "))["error"]
    else:
        error = response.json()["error"]
    assert error["code"] == code


async def test_a_get_is_405_not_an_endless_stream(serve: Serve) -> None:
    async with serve() as live:
        response = await live.http.get("/mcp", headers={"Accept": "text/event-stream"})

    assert response.status_code == 405
    assert response.headers["Allow"] == "POST"
    assert "no GET stream" in response.json()["error"]["message"]


@pytest.mark.parametrize("content_type", ["text/plain", None])
async def test_a_body_not_declared_json_is_415_in_jsonrpc_shape(
    app: FastAPI, content_type: str | None
) -> None:
    headers = {**ACCEPT, **({"Content-Type": content_type} if content_type else {})}
    async with http_for(app) as http:
        response = await http.post("/mcp", content=b'{"jsonrpc": "2.0"}', headers=headers)

    assert response.status_code == 415
    assert response.json()["error"]["message"].startswith("Unsupported Media Type")


class TestBodyLimit:
    @pytest.fixture
    def settings(self, settings: Settings) -> Settings:
        return settings.model_copy(update={"limits": LimitSettings(max_body_bytes=2048)})

    async def test_a_body_over_the_limit_is_413_in_jsonrpc_shape(self, app: FastAPI) -> None:
        message = {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": "y" * 4096}}
        async with http_for(app) as http:
            response = await http.post("/mcp", json=message, headers=ACCEPT)

        assert response.status_code == 413
        body = response.json()
        assert body["jsonrpc"] == "2.0"
        assert "2048" in body["error"]["message"]


@pytest.mark.parametrize(
    ("agents", "arguments", "named"),
    [
        ([], {"message": "hi"}, "(422 "),
        (["alpha"], {"message": "hi", "mode": "review"}, "(422 "),
    ],
)
async def test_a_turn_that_cannot_start_is_an_error_result_and_leaves_no_session(
    app: FastAPI,
    client: httpx.AsyncClient,
    agents: list[str],
    arguments: dict[str, Any],
    named: str,
) -> None:
    room = await create_room(client, agents, name="Team")
    async with mcp_client(app) as mcp:
        result = await mcp.call_tool("room_team", arguments)

    assert result.is_error
    assert named in text(result)
    sessions = await client.get(f"/v1/rooms/{room['id']}/sessions")
    assert sessions.json()["total"] == 0
