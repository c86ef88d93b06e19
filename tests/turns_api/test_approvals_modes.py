"""Approvals in rooms: a specialist paused mid-round in the orchestrator, and an agent
paused in the middle of a roundtable. What finished in the paused turn is reused by the
continuation, never asked again."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.engine.toolbox import TestTools, use_tools
from tests.factories import create_agent
from tests.modes import modes_where
from tests.sse_client import stream_turn, types
from tests.turns_api.approvals_helpers import (
    decide_streamed,
    decisions,
    gated_agent,
    of,
    room_session,
)


@pytest.fixture
def tools(app: FastAPI) -> TestTools:
    runner = TestTools()
    use_tools(app, runner)
    return runner


async def test_orchestrator_specialist_paused_mid_round(
    client: httpx.AsyncClient, scripted: ScriptedProvider, tools: TestTools
) -> None:
    scripted.script(gated_agent, agent="calc")
    scripted.script('{"agents": ["plain", "calc"]}', purpose="route")
    scripted.script("Plain answer.", agent="plain")
    session_id = await room_session(client, "orchestrator", ["calculator!"], ["plain"])
    events = await stream_turn(client, session_id, {"message": "what is 17*23?"})
    paused_id = events[0][1]["turn_id"]
    kinds = types(events)
    assert events[-1][1]["status"] == "awaiting_approval"
    assert [d["agent_key"] for d in of(events, "agent_completed")] == ["plain"]
    assert "round_end" not in kinds
    assert "synthesis_started" not in kinds
    paused = (await client.get(f"/v1/turns/{paused_id}")).json()
    assert [(m["agent_key"], m["status"]) for m in paused["messages"][1:]] == [
        ("plain", "ok"), ("calc", "awaiting_approval"),
    ]  # fmt: skip

    streamed = await decide_streamed(client, paused_id, decisions(("c-calc", True, "")))
    kinds = types(streamed)
    assert streamed[-1][1]["status"] == "completed"
    assert "routing" not in kinds  # the paused round goes on; it is not routed again
    assert [d["agent_key"] for d in of(streamed, "agent_started")] == ["calc"]
    assert kinds.index("tool_result") < kinds.index("round_end") < kinds.index("synthesis_started")
    assert [e["round"] for e in of(streamed, "round_end")] == [1]
    # plain ran once, in the paused turn; the route ran once; calc twice (call, resume).
    assert len(scripted.calls(agent="plain")) == 1
    assert len(scripted.calls(purpose="route")) == 1
    assert len(scripted.calls(agent="calc")) == 2
    [synthesis] = scripted.calls(purpose="synthesis")
    task = synthesis.request.messages[-1].content
    assert "Plain answer." in task
    assert "Checking. Result: 391" in task
    turn = (await client.get(f"/v1/turns/{streamed[0][1]['turn_id']}")).json()
    assert turn["continues"] == paused_id
    assert [(m["role"], m["agent_key"]) for m in turn["messages"]] == [
        ("user", None), ("assistant", "calc"), ("manager", "manager"),
    ]  # fmt: skip
    assert turn["messages"][1]["round"] == 1
    assert [c["purpose"] for c in turn["llm_calls"]] == ["specialist", "evaluate", "synthesis"]
    assert tools.calls == [("calculator", {"expression": "17*23"})]


async def test_roundtable_agent_paused_before_the_next_one(
    client: httpx.AsyncClient, scripted: ScriptedProvider, tools: TestTools
) -> None:
    scripted.script(gated_agent, agent="calc")
    scripted.script("First.", agent="plain")
    scripted.script("Last.", agent="after")
    session_id = await room_session(client, "roundtable", ["calculator!"], ["plain"])
    room_id = (await client.get(f"/v1/sessions/{session_id}")).json()["room_id"]
    after = await create_agent(client, "after")
    added = await client.post(f"/v1/rooms/{room_id}/agents", json={"agent_id": after["id"]})
    assert added.status_code == 201, added.text
    events = await stream_turn(client, session_id, {"message": "what is 17*23?"})
    assert events[-1][1]["status"] == "awaiting_approval"
    assert [d["agent_key"] for d in of(events, "agent_started")] == ["plain", "calc"]

    streamed = await decide_streamed(
        client, events[0][1]["turn_id"], decisions(("c-calc", False, "not now"))
    )
    assert streamed[-1][1]["status"] == "completed"
    assert [d["agent_key"] for d in of(streamed, "agent_completed")] == ["calc", "after"]
    assert len(scripted.calls(agent="plain")) == 1
    [last] = scripted.calls(agent="after")
    task = last.request.messages[-1].content
    assert "First." in task  # the paused turn's answers reach the agents after the pause
    assert "Checking. Result: not run: a person rejected this call: not now" in task
    assert tools.calls == []


@pytest.mark.parametrize("mode", modes_where(lambda s: s.session == "room" and s.can_pause))
async def test_approval_pauses_and_finishes_in_every_room_mode(
    client: httpx.AsyncClient, scripted: ScriptedProvider, tools: TestTools, mode: str
) -> None:
    scripted.script(gated_agent, agent="calc")
    scripted.script('{"agents": ["calc"]}', purpose="route")
    session_id = await room_session(client, mode, ["calculator!"], ["plain"])
    events = await stream_turn(client, session_id, {"message": "@calc what is 17*23?"})
    assert events[-1][1]["status"] == "awaiting_approval"
    assert tools.calls == []
    streamed = await decide_streamed(
        client, events[0][1]["turn_id"], decisions(("c-calc", True, ""))
    )
    assert streamed[-1][1]["status"] == "completed"
    assert streamed[0][1]["mode"] == mode
    done = [d for d in of(streamed, "agent_completed") if d["agent_key"] == "calc"]
    assert [d["text"] for d in done] == ["Result: 391"]
    assert tools.calls == [("calculator", {"expression": "17*23"})]


@pytest.mark.parametrize("mode", modes_where(lambda s: not s.can_pause))
async def test_modes_that_cannot_pause_refuse_a_gated_call_and_go_on(
    client: httpx.AsyncClient, scripted: ScriptedProvider, tools: TestTools, mode: str
) -> None:
    """Pipeline and review turns cannot wait for a person: the gated call is not run, the
    model reads why, and the turn finishes without pausing."""
    scripted.script(gated_agent, agent="calc")
    session_id = await room_session(client, mode, ["calculator!"], ["plain"])
    events = await stream_turn(client, session_id, {"message": "what is 17*23?"})
    assert types(events)[-1] == "turn_completed"
    assert events[-1][1]["status"] != "awaiting_approval"
    assert of(events, "approval_required") == []
    assert tools.calls == []
    results = [r for r in of(events, "tool_result") if r["call_id"] == "c-calc"]
    assert results  # once per call: a reviewer is asked every round
    assert all(r["ok"] is False for r in results)
    assert all("needs a person's approval" in r["content"] for r in results)
