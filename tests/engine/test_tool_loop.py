"""The tool loop without a database: events, the messages the model sees, the record."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from pantheon.engine.events import (
    AgentCompletedEvent,
    DeltaEvent,
    ToolCallEvent,
    ToolResultEvent,
)
from pantheon.engine.values import Mode
from pantheon.llm.gateway import LLMGateway
from pantheon.llm.providers.scripted import ScriptedProvider, ScriptedReply, tool_call
from pantheon.llm.types import LLMRequest
from tests.engine.conftest import ALICE, BOB, collect, compact, snapshot
from tests.engine.toolbox import TestTools, calculating_agent
from tests.modes import modes_where

CALC_ALICE = replace(ALICE, tools=("calculator",))


# The modes whose answer is the agents' own replies: the loop shows as it is.
@pytest.mark.parametrize("mode", modes_where(lambda s: not s.narrates_speakers))
async def test_an_agent_answers_by_calling_the_calculator(
    gateway: LLMGateway, provider: ScriptedProvider, mode: Mode
) -> None:
    provider.script(calculating_agent, agent="alice")
    tools = TestTools()
    snap = snapshot(mode, "@alice what is 17*23?", roster=[CALC_ALICE])
    events, record = await collect(snap, gateway, tools)
    assert compact(events) == [
        "turn_started", "agent_started", "delta", "tool_call", "tool_result", "delta",
        "agent_completed",
    ]  # fmt: skip
    call = next(e for e in events if isinstance(e, ToolCallEvent))
    result = next(e for e in events if isinstance(e, ToolResultEvent))
    assert (call.agent_key, call.round, call.name) == ("alice", 1, "calculator")
    assert call.arguments == {"expression": "17*23"}
    assert call.arguments_raw is None
    assert (result.call_id, result.ok, result.content) == (call.call_id, True, "391")
    done = next(e for e in events if isinstance(e, AgentCompletedEvent))
    assert done.text == "Computing.17*23 is 391."
    assert done.text == "".join(e.text for e in events if isinstance(e, DeltaEvent))
    assert [m.content for m in record.messages] == [done.text]
    [recorded] = record.tool_calls
    assert (recorded.call_id, recorded.result, recorded.ok, recorded.message_index) == (
        call.call_id, "391", True, 0,
    )  # fmt: skip
    assert [c.purpose for c in record.llm_calls] == ["specialist", "specialist"]
    assert done.usage.output_tokens == sum(c.output_tokens for c in record.llm_calls)
    assert tools.scopes[0].agent_key == "alice"
    assert tools.scopes[0].owner_id == "owner-1"


async def test_the_second_call_sees_the_tool_call_and_its_result(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    provider.script(calculating_agent, agent="alice")
    await collect(snapshot("roundtable", roster=[CALC_ALICE]), gateway, TestTools())
    first, second = (r.request for r in provider.requests)
    assert [t.name for t in first.tools] == ["calculator"]
    assistant, tool = second.messages[-2:]
    assert assistant.role == "assistant"
    assert assistant.content == "Computing."
    assert [c.name for c in assistant.tool_calls] == ["calculator"]
    assert (tool.role, tool.content, tool.tool_call_id) == (
        "tool", "391", assistant.tool_calls[0].id,
    )  # fmt: skip
    assert second.messages[:-2] == first.messages


async def test_an_agent_without_tools_is_offered_none(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    provider.script(calculating_agent, agent="bob")
    events, record = await collect(snapshot("roundtable", roster=[BOB]), gateway, TestTools())
    assert provider.requests[0].request.tools == ()
    assert record.messages[0].content == "No calculator."
    assert not any(isinstance(e, ToolCallEvent) for e in events)


async def test_bad_calls_become_error_results_and_siblings_keep_theirs(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    calls = (
        tool_call("calculator", "{not json", "bad-json"),
        tool_call("calculator", "[1, 2]", "not-object"),
        tool_call("rm_rf", {}, "unknown"),
        tool_call("calculator", {"expression": "2 + 2"}, "good"),
        tool_call("calculator", {"expression": "nonsense"}, "tool-error"),
    )

    def agent(request: LLMRequest) -> ScriptedReply:
        done = request.messages[-1].role == "tool"
        return ScriptedReply("done") if done else ScriptedReply("", calls)

    provider.script(agent, agent="alice")
    events, record = await collect(
        snapshot("standalone", roster=[CALC_ALICE]), gateway, TestTools()
    )
    announced = [e for e in events if isinstance(e, ToolCallEvent)]
    assert [(e.arguments, e.arguments_raw) for e in announced[:2]] == [
        ({}, "{not json"), ({}, "[1, 2]"),
    ]  # fmt: skip
    results = {e.call_id: e for e in events if isinstance(e, ToolResultEvent)}
    assert list(results) == [c.id for c in calls]
    assert {k: r.ok for k, r in results.items()} == {
        "bad-json": False, "not-object": False, "unknown": False, "good": True,
        "tool-error": False,
    }  # fmt: skip
    assert results["bad-json"].content.startswith("arguments are not valid JSON")
    assert results["not-object"].content == "arguments must be a JSON object"
    assert results["unknown"].content == "no such tool: rm_rf"
    assert results["good"].content == "4"
    assert results["tool-error"].content == "expected 'a * b', 'a + b' or 'a - b'"
    assert record.status == "completed"
    assert record.messages[0].content == "done"
    assert [c.call_id for c in record.tool_calls] == [c.id for c in calls]
    tool_messages = [m for m in provider.requests[-1].request.messages if m.role == "tool"]
    assert [m.tool_call_id for m in tool_messages] == [c.id for c in calls]


async def test_tool_results_are_capped(gateway: LLMGateway, provider: ScriptedProvider) -> None:
    async def big(args: object) -> str:
        return "x" * 10_000

    provider.script(
        lambda r: (
            ScriptedReply("ok")
            if r.messages[-1].role == "tool"
            else ScriptedReply("", (tool_call("big"),))
        ),
        agent="alice",
    )
    agent = replace(ALICE, tools=("big",))
    events, record = await collect(
        snapshot("standalone", roster=[agent]), gateway, TestTools({"big": big})
    )
    result = next(e for e in events if isinstance(e, ToolResultEvent))
    assert len(result.content) == 4000
    assert record.tool_calls[0].result == result.content
    assert json.loads(result.model_dump_json())["duration_ms"] >= 0


async def test_orchestrator_specialists_get_tools_and_the_manager_never_does(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    provider.script('{"agents": ["alice"]}', purpose="route")
    provider.script('{"continue": false}', purpose="evaluate")
    provider.script(calculating_agent, agent="alice")
    provider.script(
        lambda r: ScriptedReply("391", (tool_call("calculator", {"expression": "1 + 1"}),)),
        purpose="synthesis",
    )
    snap = snapshot("orchestrator", "what is 17*23?", roster=[CALC_ALICE, BOB])
    events, record = await collect(snap, gateway, TestTools())
    manager = [r.request for r in provider.requests if r.request.agent_key == "manager"]
    assert [r.purpose for r in manager] == ["route", "evaluate", "synthesis"]
    assert all(r.tools == () for r in manager)
    route, evaluate, synthesis = manager
    assert route.response_format is not None
    assert route.response_format.schema["properties"]["agents"]["items"]["enum"] == [
        "alice", "bob",
    ]  # fmt: skip
    assert evaluate.response_format is not None
    assert evaluate.response_format.schema["required"] == ["continue"]
    assert synthesis.response_format is None
    assert [(c.agent_key, c.result) for c in record.tool_calls] == [("alice", "391")]
    calls = [e for e in events if isinstance(e, ToolCallEvent)]
    assert [e.agent_key for e in calls] == ["alice"]  # the synthesis' call was ignored
    assert record.status == "completed"
