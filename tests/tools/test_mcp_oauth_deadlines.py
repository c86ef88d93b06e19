"""Per-user MCP OAuth past the first connect, with the real provider and server: a token
that is due is refreshed before the call, and an authorization server (or MCP server)
that never answers ends as a clear error within ``mcp_oauth_timeout_s``, never a hang."""

from __future__ import annotations

import json
import time
from datetime import timedelta
from pathlib import Path

import anyio
import httpx
import pytest
from sqlalchemy import select, update

from pantheon.db.base import utcnow
from pantheon.db.mcp_connection_models import McpOAuthConnect, McpOAuthConnection
from pantheon.db.uow import unit_of_work
from pantheon.llm.providers.scripted import ScriptedProvider, ScriptedReply, tool_call
from pantheon.llm.types import LLMRequest
from pantheon.tools.mcp.oauth.sealing import Sealer
from tests.app_factory import AppWith
from tests.auth.oidc_provider import MockProvider
from tests.factories import create_agent
from tests.sse_client import stream_turn
from tests.tools.oauth_servers import SECRET, World, connect, oauth_world, silent_server, stored

# Well under the turn's own limits; the OAuth deadline in these tests is 1.5 s a request.
BOUND_S = 15


def _whoami(request: LLMRequest) -> ScriptedReply:
    if request.messages[-1].role == "tool":
        return ScriptedReply(f"The server says: {request.messages[-1].content}")
    return ScriptedReply("", (tool_call("remote__whoami", {}),))


async def _results(http: httpx.AsyncClient, key: str) -> str:
    agent = await create_agent(http, key, tools=["remote.whoami"])
    session = await http.post(f"/v1/agents/{agent['id']}/sessions", json={"title": "t"})
    with anyio.fail_after(BOUND_S):
        events = await stream_turn(http, session.json()["id"], {"message": "?"})
    return json.dumps([data for _, data in events if data["type"] == "tool_result"])


async def _edit_connection(world: World, *, token_endpoint: str | None = None) -> None:
    """Make Alice's token due now (and point its refresh elsewhere, if given)."""
    async with unit_of_work(world.app.state.services.db, write=True) as session:
        row = await session.scalar(select(McpOAuthConnection))
        assert row is not None
        client = json.loads(json.dumps(row.client))
        if token_endpoint is not None:
            client["metadata"]["token_endpoint"] = token_endpoint
        row.client = client
        await session.execute(
            update(McpOAuthConnection).values(
                expires_at=utcnow() - timedelta(minutes=1), client=client
            )
        )


async def test_a_due_token_is_refreshed_before_the_call(
    world: World, scripted: ScriptedProvider
) -> None:
    scripted.script(_whoami)
    assert (await connect(world, "alice-at-provider")).status_code == 302
    ((_, first),) = await stored(world.app)
    await _edit_connection(world)
    assert "alice-at-provider" in await _results(world.alice, "who")
    ((row, second),) = await stored(world.app)
    assert second["access_token"] != first["access_token"]
    assert row.expires_at is not None
    assert row.expires_at > utcnow()


async def test_a_refresh_endpoint_that_never_answers_ends_the_call_as_an_error(
    world: World, scripted: ScriptedProvider
) -> None:
    scripted.script(_whoami)
    assert (await connect(world, "alice-at-provider")).status_code == 302
    async with silent_server() as silent:
        await _edit_connection(world, token_endpoint=f"{silent}/token")
        started = time.monotonic()
        told = await _results(world.alice, "who")
    assert time.monotonic() - started < BOUND_S
    assert "could not be renewed): connect it with POST /v1/connections/remote" in told
    assert "alice-at-provider" not in told


async def _point_connect_at(world: World, token_endpoint: str) -> None:
    """Send the pending connect's code exchange to ``token_endpoint``."""
    async with unit_of_work(world.app.state.services.db, write=True) as session:
        row = await session.scalar(select(McpOAuthConnect))
        assert row is not None
        flow = json.loads(Sealer(SECRET).open(row.sealed_flow) or "")
        flow["metadata"]["token_endpoint"] = token_endpoint
        row.sealed_flow = Sealer(SECRET).seal(json.dumps(flow))


@pytest.mark.parametrize("trickle", [False, True], ids=["silent", "trickling"])
async def test_a_token_endpoint_that_never_answers_fails_the_callback_in_time(
    world: World, trickle: bool
) -> None:
    started = await world.alice.post("/v1/connections/remote")
    back = world.provider.authorize(started.json()["url"], "alice-at-provider")
    async with silent_server(trickle=trickle) as silent:
        await _point_connect_at(world, f"{silent}/token")
        clock = time.monotonic()
        with anyio.fail_after(BOUND_S):
            answer = await world.anon.get(back)
    assert time.monotonic() - clock < BOUND_S
    assert answer.headers["location"].endswith("connection_result=failed")
    assert (await world.alice.get("/v1/connections")).json()["items"][0]["connected"] is False


async def test_an_mcp_server_that_never_answers_fails_the_connect_in_time(
    app_with: AppWith, tmp_path: Path, oauth_processes: tuple[MockProvider, str]
) -> None:
    provider, _ = oauth_processes
    async with silent_server() as silent, oauth_world(app_with, tmp_path, provider, silent) as w:
        with anyio.fail_after(BOUND_S):
            answer = await w.alice.post("/v1/connections/remote")
    assert answer.status_code == 503
    body = answer.json()
    assert body["code"] == "unavailable"
    assert "did not answer in time (mcp_oauth_timeout_s)" in body["detail"]
