"""The app's real toolbox end to end: an agent with the built-in ``calculator`` answers
"what is 17*23?" by calling it, streamed, with the result recorded."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx
from fastapi import FastAPI

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.engine.toolbox import TestTools, calculating_agent, use_tools
from tests.factories import create_agent
from tests.sse_client import stream_turn, types


async def test_the_builtin_calculator_answers_through_the_real_toolbox(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script(calculating_agent, agent="calc")
    agent = await create_agent(client, "calc", tools=["calculator"])
    session = await client.post(f"/v1/agents/{agent['id']}/sessions", json={"title": "t"})
    events = await stream_turn(client, session.json()["id"], {"message": "what is 17*23?"})
    assert "tool_call" in types(events)
    result = next(data for _, data in events if data["type"] == "tool_result")
    assert result["ok"] is True
    assert result["content"] == "391"
    turn = (await client.get(f"/v1/turns/{events[0][1]['turn_id']}")).json()
    assert turn["status"] == "completed"
    assert turn["messages"][-1]["content"].endswith("17*23 is 391.")
    (call,) = turn["tool_calls"]
    assert (call["name"], call["ok"], call["result"]) == ("calculator", True, "391")
    assert len(turn["llm_calls"]) == 2  # the call that asked, the call that answered


async def test_an_unknown_tool_name_is_422_naming_the_builtins(client: httpx.AsyncClient) -> None:
    body = {"key": "k", "name": "K", "role_prompt": "r", "tools": ["calculatr"]}
    response = await client.post("/v1/agents", json=body)
    assert response.status_code == 422
    assert "calculator" in response.text


async def test_unstorable_text_from_a_tool_is_replaced_and_the_turn_kept(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    use_tools(app, TestTools({"calculator": _nul_and_surrogate}))
    scripted.script(calculating_agent, agent="calc")
    agent = await create_agent(client, "calc", tools=["calculator"])
    session = await client.post(f"/v1/agents/{agent['id']}/sessions", json={"title": "t"})
    events = await stream_turn(client, session.json()["id"], {"message": "go"})
    assert events[-1][1]["status"] == "completed"
    turn = (await client.get(f"/v1/turns/{events[0][1]['turn_id']}")).json()
    assert turn["tool_calls"][0]["result"] == "a\ufffdb\ufffd"


async def _nul_and_surrogate(args: Mapping[str, Any]) -> str:
    return "a\x00b\ud800"
