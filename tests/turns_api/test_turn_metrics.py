"""Tool calls by tool and outcome, and the live gauges (running turns, open streams) while
a turn waits in a tool call and after it ends (a real server: the stream must be live)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import httpx

from pantheon.llm.providers.scripted import ScriptedProvider, ScriptedReply, tool_call
from pantheon.llm.types import LLMRequest
from tests.engine.toolbox import TestTools, calculating_agent, calculator, use_tools
from tests.factories import create_agent
from tests.observability.scrape import grown, scrape, total
from tests.sse import open_stream
from tests.turns_api.conftest import LiveServer


async def _agent_session(client: httpx.AsyncClient) -> str:
    calc = await create_agent(client, "calc", tools=["calculator"])
    response = await client.post(f"/v1/agents/{calc['id']}/sessions", json={"title": "t"})
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


async def test_tool_calls_and_live_gauges_while_a_streamed_turn_runs(
    live: LiveServer, scripted: ScriptedProvider
) -> None:
    client = live.http
    release = asyncio.Event()

    async def held_calculator(args: Mapping[str, Any]) -> str:
        await release.wait()
        return await calculator(args)

    use_tools(live.app, TestTools({"calculator": held_calculator}))
    scripted.script(calculating_agent, agent="calc")
    session = await _agent_session(client)
    before = await scrape(client)
    url = f"/v1/sessions/{session}/turns"
    async with open_stream(client, url, method="POST", json={"message": "17*23?"}) as stream:
        await stream.until("tool_call")
        during = await scrape(client)
        release.set()
        await stream.rest()
    after = await scrape(client)
    assert grown(before, during, "pantheon_live_turns") == 1
    assert grown(before, during, "pantheon_sse_listeners", api="turns") == 1
    assert grown(before, during, "pantheon_tool_calls_total") == 0
    assert total(after, "pantheon_live_turns") == total(before, "pantheon_live_turns")
    assert grown(before, after, "pantheon_sse_listeners", api="turns") == 0
    assert grown(before, after, "pantheon_tool_calls_total", tool="calculator", outcome="ok") == 1
    assert grown(before, after, "pantheon_tool_call_duration_seconds_count", tool="calculator") == 1
    assert grown(before, after, "pantheon_turns_total", status="completed") == 1
    assert grown(before, after, "pantheon_llm_calls_total", purpose="specialist") == 2


async def test_a_tool_name_a_model_made_up_is_labelled_other(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    made_up = "made_up_tool_4f1c"

    def agent(request: LLMRequest) -> str | ScriptedReply:
        if any(m.role == "tool" for m in request.messages):
            return "Done."
        return ScriptedReply(tool_calls=(tool_call(made_up, {}), tool_call("calculator", {
            "expression": "2 + 2"})))  # fmt: skip

    scripted.script(agent, agent="calc")
    session = await _agent_session(client)
    before = await scrape(client)
    turn = await client.post(f"/v1/sessions/{session}/turns", json={"message": "go"})
    assert turn.status_code == 201, turn.text
    after = await scrape(client)
    assert grown(before, after, "pantheon_tool_calls_total", tool="other", outcome="error") == 1
    assert grown(before, after, "pantheon_tool_calls_total", tool="calculator", outcome="ok") == 1
    assert made_up not in (await client.get("/metrics")).text
