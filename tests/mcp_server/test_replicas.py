"""Two real replicas on one PostgreSQL database and one Redis: an MCP tool call running on
replica A is seen running and cancelled through replica B's REST API, and the MCP host
gets its result saying cancelled (never a hang); a host listening on A hears of a room
created through B."""

from __future__ import annotations

from pathlib import Path

import anyio
import httpx
import pytest
from mcp import Client
from mcp.server.subscriptions import ToolsListChanged
from mcp_types import CallToolResult

from tests.factories import create_room
from tests.llm.mock_openai import MockOpenAI, Reply
from tests.mcp_server.conftest import mcp_client_at
from tests.redis_server import RedisServer
from tests.replicas.cluster import Replica, replica_env, start_replica

pytestmark = [pytest.mark.redis, pytest.mark.postgres]
HANGING = Reply(chunks=["w0 ", "w1 ", "w2 "], hang_after=2, hang_s=120)
DEADLINE_S = 60.0


async def _pair(
    tmp_path: Path, database_url: str, redis: RedisServer, upstream: MockOpenAI
) -> tuple[Replica, Replica]:
    env = {"PANTHEON_MCP__TOOLS_POLL_S": "0.2"}
    a = await start_replica(replica_env(tmp_path / "a", database_url, redis.url, upstream, **env))
    b = await start_replica(replica_env(tmp_path / "b", database_url, redis.url, upstream, **env))
    return a, b


async def _running_turn(on_b: httpx.AsyncClient, room_id: str) -> str:
    """The turn the call runs, as replica B sees it: the call's new session is busy with
    it (409 naming it), and reading it is 409 while it runs."""
    [session] = (await on_b.get(f"/v1/rooms/{room_id}/sessions")).json()["items"]
    busy = await on_b.post(f"/v1/sessions/{session['id']}/turns", json={"message": "again"})
    assert busy.status_code == 409, busy.text
    turn_id = str(busy.json()["running_turn_id"])
    still = await on_b.get(f"/v1/turns/{turn_id}")
    assert still.status_code == 409, still.text
    return turn_id


async def test_a_call_on_one_replica_is_cancelled_from_the_other(
    tmp_path: Path, upstream: MockOpenAI, redis: RedisServer, database_url: str
) -> None:
    upstream.queue(HANGING)
    a, b = await _pair(tmp_path, database_url, redis, upstream)
    results: list[CallToolResult] = []
    try:
        async with a.client() as on_a, b.client() as on_b:
            room = await create_room(on_a, ["alpha"], name="Team", mode="roundtable")
            started, answered = anyio.Event(), anyio.Event()

            async def progress(progress: float, total: float | None, message: str | None) -> None:
                started.set()

            async with mcp_client_at(a.url) as host, anyio.create_task_group() as tg:

                async def call(mcp: Client) -> None:
                    arguments = {"message": "go"}
                    results.append(
                        await mcp.call_tool("room_team", arguments, progress_callback=progress)
                    )
                    answered.set()

                tg.start_soon(call, host)
                with anyio.fail_after(DEADLINE_S):  # the turn runs on A
                    await started.wait()
                turn_id = await _running_turn(on_b, room["id"])
                cancelled = await on_b.post(f"/v1/turns/{turn_id}/cancel")
                assert cancelled.status_code == 200, cancelled.text
                with anyio.fail_after(DEADLINE_S):  # the call ends: never a hang
                    await answered.wait()
            recorded = (await on_b.get(f"/v1/turns/{turn_id}")).json()
    finally:
        await a.stop()
        await b.stop()
    [result] = results
    assert not result.is_error
    assert result.structured_content is not None
    assert result.structured_content["turn_id"] == turn_id
    assert result.structured_content["status"] == "cancelled"
    assert "(The turn was cancelled.)" in result.content[0].text  # type: ignore[union-attr]
    assert recorded["status"] == "cancelled"


async def test_a_host_listening_on_one_replica_hears_a_room_made_on_the_other(
    tmp_path: Path, upstream: MockOpenAI, redis: RedisServer, database_url: str
) -> None:
    a, b = await _pair(tmp_path, database_url, redis, upstream)
    try:
        async with b.client() as on_b, mcp_client_at(a.url) as host:
            async with host.listen(tools_list_changed=True) as changes:
                await create_room(on_b, ["alpha"], name="Made On B")
                with anyio.fail_after(DEADLINE_S):
                    assert isinstance(await anext(changes), ToolsListChanged)
            names = {tool.name for tool in (await host.list_tools()).tools}
    finally:
        await a.stop()
        await b.stop()
    assert {"room_made_on_b", "agent_alpha"} <= names
