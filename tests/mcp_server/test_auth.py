"""Who may use ``/mcp``: in ``keys`` mode the API keys, as a Bearer token, each user seeing
only their own rooms, agents and sessions; in ``local`` mode only loopback hosts."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI
from mcp import MCPError

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.auth.conftest import MakeClients
from tests.factories import create_agent, create_room
from tests.mcp_server.conftest import http_for, mcp_client
from tests.mcp_server.test_calls import structured, text

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}
ACCEPT = {"Accept": "application/json, text/event-stream"}


@pytest.mark.parametrize("key", [None, "pk_00000000_wrong", "not-a-key"])
async def test_no_valid_key_is_401_in_jsonrpc_shape(
    make_clients: MakeClients, key: str | None
) -> None:
    users = await make_clients()
    async with http_for(users.app, key) as http:
        response = await http.post("/mcp", json=INITIALIZE, headers=ACCEPT)

    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == 'Bearer realm="pantheon"'
    body = response.json()
    assert body["jsonrpc"] == "2.0"
    assert "API key" in body["error"]["message"]


async def test_each_user_sees_and_runs_only_their_own(
    make_clients: MakeClients, scripted: ScriptedProvider
) -> None:
    users = await make_clients()
    await create_room(users.alice, ["alpha"], name="Secret plans")
    await create_room(users.bob, ["beta"], name="Bobs room")
    async with mcp_client(users.app, users.keys["alice"]) as alice:
        alice_tools = [t.name for t in (await alice.list_tools()).tools]
        mine = structured(await alice.call_tool("room_secret_plans", {"message": "hi"}))
    async with mcp_client(users.app, users.keys["bob"]) as bob:
        bob_tools = [t.name for t in (await bob.list_tools()).tools]
        with pytest.raises(MCPError) as raised:
            await bob.call_tool("room_secret_plans", {"message": "hi"})
        stolen = await bob.call_tool(
            "room_bobs_room", {"message": "hi", "session_id": mine["session_id"]}
        )

    assert alice_tools == ["room_secret_plans", "agent_alpha"]
    assert bob_tools == ["room_bobs_room", "agent_beta"]
    assert "Unknown tool: room_secret_plans" in raised.value.message
    assert stolen.is_error
    assert text(stolen) == f"session {mine['session_id']} (session_id) not found (404 not_found)"


async def test_the_turn_belongs_to_the_keys_user(
    make_clients: MakeClients, scripted: ScriptedProvider
) -> None:
    users = await make_clients()
    await create_agent(users.alice, "alpha")
    async with mcp_client(users.app, users.keys["alice"]) as alice:
        outcome = structured(await alice.call_tool("agent_alpha", {"message": "hi"}))

    assert (await users.alice.get(f"/v1/turns/{outcome['turn_id']}")).status_code == 200
    assert (await users.bob.get(f"/v1/turns/{outcome['turn_id']}")).status_code == 404


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"Host": "evil.example"}, 421),
        ({"Origin": "http://evil.example"}, 403),
        ({"Host": "localhost:8000", "Origin": "http://localhost:8000"}, 200),
    ],
)
async def test_local_mode_answers_loopback_hosts_only(
    app: FastAPI, headers: dict[str, str], status: int
) -> None:
    async with http_for(app) as http:
        response = await http.post("/mcp", json=INITIALIZE, headers={**ACCEPT, **headers})

    assert response.status_code == status, response.text


async def test_the_native_client_fixture_host_is_refused_in_local_mode(
    client: httpx.AsyncClient,
) -> None:
    """``http://test`` is not a loopback host: what a rebinding page's request looks like."""
    response = await client.post("/mcp", json=INITIALIZE, headers=ACCEPT)
    assert response.status_code == 421
