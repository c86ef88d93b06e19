"""Per-user OAuth to an MCP server, end to end with real components (docs/adr/0046): the
authorization server is ``oidc-provider-mock`` in its own process, the MCP server a real
SDK server whose resource-server auth checks each token against that provider. Alice
connects through the API and the provider's authorization form, her agent's tool call
runs as her (the server answers her subject), Bob, not connected, is told how to connect;
no token reaches the events or the API answers."""

from __future__ import annotations

import json
import logging

import httpx
import pytest
from fastapi import FastAPI

from pantheon.llm.providers.scripted import ScriptedProvider, ScriptedReply, tool_call
from pantheon.llm.types import LLMRequest
from tests.auth.oidc_provider import query
from tests.factories import create_agent
from tests.sse_client import stream_turn
from tests.tools.oauth_servers import World, connect, stored

CALL = "remote__whoami"


def _whoami(request: LLMRequest) -> ScriptedReply:
    if request.messages[-1].role == "tool":
        return ScriptedReply(f"The server says: {request.messages[-1].content}")
    return ScriptedReply("", (tool_call(CALL, {}),))


async def _turn(http: httpx.AsyncClient, key: str = "who") -> list[dict[str, object]]:
    agent = await create_agent(http, key, tools=["remote.whoami"])
    session = await http.post(f"/v1/agents/{agent['id']}/sessions", json={"title": "t"})
    return [data for _, data in await stream_turn(http, session.json()["id"], {"message": "?"})]


async def _stored_tokens(app: FastAPI) -> list[str]:
    return [t[k] for _, t in await stored(app) for k in ("access_token", "refresh_token")]


async def test_a_user_connects_and_their_agent_calls_the_tool_as_them(
    world: World, scripted: ScriptedProvider, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    scripted.script(_whoami)
    before = (await world.alice.get("/v1/connections")).json()
    assert before == {
        "items": [{"server": "remote", "connected": False, "scopes": [], "expires_at": None}]
    }
    back = await connect(world, "alice-at-provider")
    assert back.status_code == 302
    assert back.headers["location"] == "/?connection=remote&connection_result=connected"
    listed = await world.alice.get("/v1/connections")
    (item,) = listed.json()["items"]
    assert (item["server"], item["connected"]) == ("remote", True)
    assert item["expires_at"] is not None

    events = await _turn(world.alice)
    results = [e for e in events if e["type"] == "tool_result"]
    assert results, [e["type"] for e in events]
    assert "alice-at-provider" in json.dumps(results)
    tokens = await _stored_tokens(world.app)
    assert tokens, "the connection holds an access token"
    seen = json.dumps(events) + listed.text + (await world.alice.get("/v1/tools")).text
    seen += caplog.text
    for token in tokens:
        assert token not in seen

    bob_events = await _turn(world.bob)
    told = json.dumps([e for e in bob_events if e["type"] == "tool_result"])
    assert "POST /v1/connections/remote" in told
    assert "alice-at-provider" not in json.dumps(bob_events)
    bob_listing = (await world.bob.get("/v1/connections")).json()["items"]
    assert [i["connected"] for i in bob_listing] == [False]

    gone = await world.alice.delete("/v1/connections/remote")
    assert gone.status_code == 204
    assert (await world.alice.get("/v1/connections")).json()["items"][0]["connected"] is False
    after = json.dumps(await _turn(world.alice, "again"))
    assert "POST /v1/connections/remote" in after
    assert "alice-at-provider" not in after


async def test_a_state_works_once_and_a_made_up_one_is_refused(world: World) -> None:
    started = await world.alice.post("/v1/connections/remote")
    back = world.provider.authorize(started.json()["url"], "alice-at-provider")
    first = await world.anon.get(back)
    assert first.headers["location"].endswith("connection_result=connected")
    again = await world.anon.get(back)
    assert again.status_code == 302
    assert again.headers["location"].endswith("connection_result=failed")
    made_up = {**query(back), "state": "not-a-state"}
    forged = await world.anon.get("/v1/connections/remote/callback", params=made_up)
    assert forged.headers["location"].endswith("connection_result=failed")


async def test_a_refused_consent_leaves_the_user_unconnected(world: World) -> None:
    started = await world.alice.post("/v1/connections/remote")
    back = world.provider.authorize(started.json()["url"], "alice-at-provider", deny=True)
    refused = await world.anon.get(back)
    assert refused.headers["location"].endswith("connection_result=refused")
    assert (await world.alice.get("/v1/connections")).json()["items"][0]["connected"] is False


async def test_unknown_servers_and_anonymous_callers(world: World) -> None:
    unknown = await world.alice.post("/v1/connections/nope")
    assert unknown.status_code == 404
    assert "no MCP server named 'nope'" in unknown.json()["detail"]
    assert (await world.anon.post("/v1/connections/remote")).status_code == 401
    assert (await world.anon.get("/v1/connections")).status_code == 401
