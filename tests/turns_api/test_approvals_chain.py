"""A continuation that pauses again, and the tool budget counted across the paused turn and
its continuations (``tools.max_calls_per_turn`` = 2 here)."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from pantheon.llm.providers.scripted import ScriptedProvider, ScriptedReply, tool_call
from pantheon.llm.types import LLMRequest
from pantheon.settings import Settings, ToolSettings
from tests.engine.toolbox import TestTools, use_tools
from tests.sse_client import stream_turn
from tests.turns_api.approvals_helpers import agent_session, decide, decisions


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"tools": ToolSettings(max_calls_per_turn=2)})


@pytest.fixture
def tools(app: FastAPI) -> TestTools:
    runner = TestTools()
    use_tools(app, runner)
    return runner


def chained(request: LLMRequest) -> ScriptedReply:
    """17*23, then that plus one, each a gated call; without tools it says what it has."""
    results = [m.content for m in request.messages if m.role == "tool"]
    if not request.tools:
        return ScriptedReply("Out of tools: " + " then ".join(results))
    if not results:
        return ScriptedReply("", (tool_call("calculator", {"expression": "17*23"}, "c1"),))
    if len(results) == 1:
        plus = {"expression": f"{results[0]}+1"}
        return ScriptedReply("", (tool_call("calculator", plus, "c2"),))
    return ScriptedReply("Result: " + " then ".join(results))


async def test_a_continuation_can_pause_again_and_the_budget_carries_over(
    client: httpx.AsyncClient, scripted: ScriptedProvider, tools: TestTools
) -> None:
    scripted.script(chained, agent="calc")
    session_id = await agent_session(client, ["calculator!"])
    events = await stream_turn(client, session_id, {"message": "count"})
    first = events[0][1]["turn_id"]
    second = await decide(client, first, decisions(("c1", True, "")))
    assert second.status_code == 201, second.text
    assert (second.json()["status"], second.json()["continues"]) == ("awaiting_approval", first)
    second_id = second.json()["id"]
    assert [(r["call_id"], r["approval"]) for r in second.json()["tool_calls"]] == [
        ("c1", "approved"), ("c2", "pending"),
    ]  # fmt: skip
    # The first turn is decided; the second now blocks the session and waits.
    again = await decide(client, first, decisions(("c1", True, "")))
    assert again.status_code == 409
    assert again.json()["continued_by"] == second_id
    blocked = await client.post(f"/v1/sessions/{session_id}/turns", json={"message": "hi"})
    assert blocked.status_code == 409
    assert blocked.json()["awaiting_turn_id"] == second_id

    third = await decide(client, second_id, decisions(("c2", True, "")))
    assert third.status_code == 201, third.text
    body = third.json()
    assert (body["status"], body["continues"]) == ("completed", second_id)
    assert tools.calls == [
        ("calculator", {"expression": "17*23"}),
        ("calculator", {"expression": "391+1"}),
    ]
    # Two calls were the whole turn's budget: the last model call carried no tools.
    last = scripted.calls(agent="calc")[-1].request
    assert last.tools == ()
    assert [m.role for m in last.messages[-4:]] == ["assistant", "tool", "assistant", "tool"]
    assert body["messages"][-1]["content"] == "Out of tools: 391 then 392"
    # Turn data is append-only: the decided turn still says what it was.
    assert (await client.get(f"/v1/turns/{second_id}")).json()["status"] == "awaiting_approval"
