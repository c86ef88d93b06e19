"""Agents that call tools, through HTTP: every mode, error results, cancel mid-call.

The app's tool runner is replaced by the tests' ``TestTools`` (a real small runner); the
scripted provider plays a model that calls the calculator when it is offered.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from pantheon.llm.providers.scripted import ScriptedProvider, ScriptedReply, tool_call
from pantheon.llm.types import LLMRequest
from pantheon.settings import Settings, ToolSettings
from tests.engine.toolbox import TestTools, calculating_agent, calculator, use_tools
from tests.factories import add_to_room, create_agent, create_room
from tests.sse import open_stream, wait_finished
from tests.sse_client import Event, stream_turn, types
from tests.turns_api.conftest import LiveServer, Serve


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"tools": ToolSettings(timeout_s=0.2)})


@pytest.fixture
def tools(app: FastAPI) -> TestTools:
    runner = TestTools()
    use_tools(app, runner)
    return runner


async def calculator_or_hang(args: Mapping[str, Any]) -> str:
    if args.get("expression") == "forever":
        await asyncio.Event().wait()
    return await calculator(args)


async def _session(client: httpx.AsyncClient, mode: str) -> str:
    """A session whose agent ``calc`` has the calculator (plus ``plain`` in rooms)."""
    calc = await create_agent(client, "calc", tools=["calculator"])
    if mode == "standalone":
        response = await client.post(f"/v1/agents/{calc['id']}/sessions", json={"title": "t"})
    else:
        room = await create_room(client, ["plain"], mode=mode)
        await add_to_room(client, room["id"], calc["id"])
        response = await client.post(f"/v1/rooms/{room['id']}/sessions", json={"title": "t"})
    assert response.status_code == 201, response.text
    session_id: str = response.json()["id"]
    return session_id


def _of(events: list[Event], kind: str) -> list[dict[str, Any]]:
    return [data for _, data in events if data["type"] == kind]


@pytest.mark.parametrize("mode", ["standalone", "manual", "roundtable", "orchestrator"])
async def test_calculator_answers_17_times_23_in_every_mode(
    client: httpx.AsyncClient, scripted: ScriptedProvider, tools: TestTools, mode: str
) -> None:
    scripted.script(calculating_agent, agent="calc")
    scripted.script('{"agents": ["calc"]}', purpose="route")
    session_id = await _session(client, mode)
    events = await stream_turn(client, session_id, {"message": "@calc what is 17*23?"})
    assert types(events)[-1] == "turn_completed"
    assert events[-1][1]["status"] == "completed"
    [call], [result] = _of(events, "tool_call"), _of(events, "tool_result")
    assert (call["agent_key"], call["name"], call["arguments"]) == (
        "calc", "calculator", {"expression": "17*23"},
    )  # fmt: skip
    assert (result["call_id"], result["ok"], result["content"]) == (call["call_id"], True, "391")
    calc_done = next(d for d in _of(events, "agent_completed") if d["agent_key"] == "calc")
    assert calc_done["text"] == "Computing.17*23 is 391."
    turn = (await client.get(f"/v1/turns/{call['turn_id']}")).json()
    [row] = turn["tool_calls"]
    assert (row["call_id"], row["name"], row["ok"], row["result"], row["round"]) == (
        call["call_id"], "calculator", True, "391", 1,
    )  # fmt: skip
    assert row["arguments"] == '{"expression": "17*23"}'
    calc_message = next(m for m in turn["messages"] if m["agent_key"] == "calc")
    assert row["message_id"] == calc_message["id"]
    assert calc_message["content"] == calc_done["text"]
    calc_calls = [c for c in turn["llm_calls"] if c["agent_key"] == "calc"]
    assert [c["purpose"] for c in calc_calls] == ["specialist", "specialist"]
    assert calc_done["usage"]["input_tokens"] == sum(c["input_tokens"] for c in calc_calls)
    assert calc_done["usage"]["output_tokens"] == sum(c["output_tokens"] for c in calc_calls)
    assert turn["usage"]["input_tokens"] == sum(c["input_tokens"] for c in turn["llm_calls"])
    assert all(c["status"] == "ok" for c in turn["llm_calls"])
    manager = [r.request for r in scripted.requests if r.request.agent_key == "manager"]
    assert all(r.tools == () for r in manager)


async def test_hanging_malformed_and_unknown_calls_end_as_error_results(
    client: httpx.AsyncClient, scripted: ScriptedProvider, tools: TestTools
) -> None:
    tools.tools["calculator"] = calculator_or_hang
    calls = (
        tool_call("calculator", {"expression": "forever"}, "hang"),
        tool_call("calculator", "{oops", "malformed"),
        tool_call("rm_rf", {}, "unknown"),
        tool_call("calculator", {"expression": "6 * 7"}, "fine"),
    )

    def model(request: LLMRequest) -> ScriptedReply:
        if request.messages[-1].role == "tool":
            return ScriptedReply("Some tools failed; 6*7 is 42.")
        return ScriptedReply("", calls)

    scripted.script(model, agent="calc")
    session_id = await _session(client, "standalone")
    events = await stream_turn(client, session_id, {"message": "try everything"})
    assert events[-1][1]["status"] == "completed"
    results = {d["call_id"]: (d["ok"], d["content"]) for d in _of(events, "tool_result")}
    assert results["hang"] == (False, "timed out after 0.2s")
    assert results["malformed"][0] is False
    assert results["malformed"][1].startswith("arguments are not valid JSON")
    assert results["unknown"] == (False, "no such tool: rm_rf")
    assert results["fine"] == (True, "42")
    announced = {d["call_id"]: d for d in _of(events, "tool_call")}
    assert announced["malformed"]["arguments"] == {}
    assert announced["malformed"]["arguments_raw"] == "{oops"
    turn = (await client.get(f"/v1/turns/{events[0][1]['turn_id']}")).json()
    rows = [(r["call_id"], r["ok"], r["result"]) for r in turn["tool_calls"]]
    assert rows == [(k, *results[k]) for k in ("hang", "malformed", "unknown", "fine")]
    assert turn["messages"][-1]["content"] == "Some tools failed; 6*7 is 42."
    assert tools.calls == [
        ("calculator", {"expression": "forever"}),
        ("calculator", {"expression": "6 * 7"}),
    ]


async def test_cancel_mid_tool_call_records_what_was_done(
    serve: Serve, scripted: ScriptedProvider
) -> None:
    async with serve(tools=ToolSettings(timeout_s=30)) as live:
        await _cancel_mid_call(live, scripted)


async def _cancel_mid_call(live: LiveServer, scripted: ScriptedProvider) -> None:
    use_tools(live.app, TestTools({"calculator": calculator_or_hang}))
    calls = (
        tool_call("calculator", {"expression": "17*23"}, "done"),
        tool_call("calculator", {"expression": "forever"}, "stuck"),
    )
    scripted.script(ScriptedReply("Working.", calls), agent="calc")
    session_id = await _session(live.http, "standalone")
    url = f"/v1/sessions/{session_id}/turns"
    async with open_stream(live.http, url, method="POST", json={"message": "go"}) as stream:
        await stream.until("tool_result")
        turn_id = stream.seen[0][1]["turn_id"]
        cancelled = await live.http.post(f"/v1/turns/{turn_id}/cancel")
        assert cancelled.status_code == 200, cancelled.text
        await stream.rest()
    assert stream.seen[-1][1]["status"] == "cancelled"
    turn = await wait_finished(live.http, turn_id)
    assert turn["status"] == "cancelled"
    rows = [(r["call_id"], r["ok"], r["result"]) for r in turn["tool_calls"]]
    assert rows == [("done", True, "391"), ("stuck", False, "cancelled")]
    assert (turn["messages"][-1]["status"], turn["messages"][-1]["content"]) == (
        "cancelled", "Working.",
    )  # fmt: skip
