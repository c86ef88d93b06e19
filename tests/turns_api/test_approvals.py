"""Approval-gated tools through HTTP: a standalone agent pauses, a person approves or
rejects, the continuation finishes the turn; every step is recorded.

The app's tool runner is the tests' ``TestTools`` (calculator and echo); agents list
``calculator!`` (gated) and sometimes ``echo`` (not gated).
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.engine.toolbox import TestTools, calculator, use_tools
from tests.sse_client import stream_turn, types
from tests.turns_api.approvals_helpers import (
    agent_session,
    decide,
    decide_streamed,
    decisions,
    echo,
    gated_agent,
    of,
)


@pytest.fixture
def tools(app: FastAPI) -> TestTools:
    runner = TestTools({"calculator": calculator, "echo": echo})
    use_tools(app, runner)
    return runner


async def _paused(client: httpx.AsyncClient, scripted: ScriptedProvider, entries: list[str]) -> Any:
    scripted.script(gated_agent, agent="calc")
    session_id = await agent_session(client, entries)
    events = await stream_turn(client, session_id, {"message": "what is 17*23?"})
    return session_id, events


async def test_a_gated_call_pauses_the_turn_and_is_committed_pending(
    client: httpx.AsyncClient, scripted: ScriptedProvider, tools: TestTools
) -> None:
    session_id, events = await _paused(client, scripted, ["calculator!", "echo"])
    assert types(events)[-1] == "turn_completed"
    assert events[-1][1]["status"] == "awaiting_approval"
    [required] = of(events, "approval_required")
    assert (required["agent_key"], required["call_id"], required["name"]) == (
        "calc", "c-calc", "calculator",
    )  # fmt: skip
    assert required["arguments"] == {"expression": "17*23"}
    # The ungated sibling of the same round ran; the gated call did not; no end event.
    assert [(r["call_id"], r["content"]) for r in of(events, "tool_result")] == [
        ("c-echo", "echo: hi")
    ]
    assert tools.calls == [("echo", {"expression": "hi"})]
    assert of(events, "agent_completed") == []
    turn = (await client.get(f"/v1/turns/{required['turn_id']}")).json()
    assert turn["status"] == "awaiting_approval"
    assert turn["continues"] is None
    rows = [(r["call_id"], r["approval"], r["ok"]) for r in turn["tool_calls"]]
    assert rows == [("c-calc", "pending", False), ("c-echo", None, True)]
    [user, calc] = turn["messages"]
    assert (calc["agent_key"], calc["status"], calc["content"]) == (
        "calc", "awaiting_approval", "Checking. ",
    )  # fmt: skip
    assert user["content"] == "what is 17*23?"
    # A new message now is refused, naming the turn that waits.
    blocked = await client.post(f"/v1/sessions/{session_id}/turns", json={"message": "hello?"})
    assert blocked.status_code == 409
    assert required["turn_id"] in blocked.json()["detail"]


async def test_approving_runs_the_call_and_finishes_the_turn(
    client: httpx.AsyncClient, scripted: ScriptedProvider, tools: TestTools
) -> None:
    session_id, events = await _paused(client, scripted, ["calculator!", "echo"])
    paused_id = events[0][1]["turn_id"]
    agent_id = (await client.get(f"/v1/sessions/{session_id}")).json()["agent_id"]
    assert await _waiting(client, agent_id) == {session_id: True}  # the sidebar marks it
    answer = await decide(client, paused_id, decisions(("c-calc", True, "")))
    assert answer.status_code == 201, answer.text
    assert await _waiting(client, agent_id) == {session_id: False}
    turn = answer.json()
    assert (turn["status"], turn["continues"]) == ("completed", paused_id)
    # The echo that ran in the paused turn is reused, not run again.
    assert tools.calls == [("echo", {"expression": "hi"}), ("calculator", {"expression": "17*23"})]
    [row] = turn["tool_calls"]
    assert (row["call_id"], row["approval"], row["ok"], row["result"]) == (
        "c-calc", "approved", True, "391",
    )  # fmt: skip
    [user, calc] = turn["messages"]
    assert user["content"] == "Approved calculator (c-calc)"
    assert (calc["agent_key"], calc["content"]) == ("calc", "Result: 391 | echo: hi")
    assert row["message_id"] == calc["id"]
    # The model's next call saw its tool-call message, then both results in call order.
    last = scripted.calls(agent="calc")[-1].request.messages
    assert [m.role for m in last[-3:]] == ["assistant", "tool", "tool"]
    assert [m.tool_call_id for m in last[-2:]] == ["c-calc", "c-echo"]
    assert [c["purpose"] for c in turn["llm_calls"]] == ["specialist"]
    # Deciding again is a conflict; the session takes messages again.
    again = await decide(client, paused_id, decisions(("c-calc", True, "")))
    assert again.status_code == 409
    assert turn["id"] in again.json()["detail"]
    later = await client.post(f"/v1/sessions/{session_id}/turns", json={"message": "thanks"})
    assert later.status_code == 201, later.text
    listed = (await client.get(f"/v1/sessions/{session_id}/turns")).json()["items"]
    # This model asks for the calculator on every message: one approval is not a licence.
    assert [t["status"] for t in listed] == ["awaiting_approval", "completed", "awaiting_approval"]
    read = (await client.get(f"/v1/sessions/{session_id}")).json()
    assert read["awaiting_approval"] is True


async def _waiting(client: httpx.AsyncClient, agent_id: str) -> dict[str, bool]:
    """Each of the agent's sessions: whether its newest turn waits for a person."""
    listed = (await client.get(f"/v1/agents/{agent_id}/sessions")).json()["items"]
    return {s["id"]: s["awaiting_approval"] for s in listed}


async def test_rejecting_tells_the_model_why_and_runs_nothing(
    client: httpx.AsyncClient, scripted: ScriptedProvider, tools: TestTools
) -> None:
    _session, events = await _paused(client, scripted, ["calculator!"])
    paused_id = events[0][1]["turn_id"]
    streamed = await decide_streamed(
        client, paused_id, decisions(("c-calc", False, "too expensive today"))
    )
    assert streamed[0][1]["type"] == "turn_started"
    assert streamed[0][1]["continues"] == paused_id
    kinds = types(streamed)
    assert kinds[-1] == "turn_completed"
    assert streamed[-1][1]["status"] == "completed"
    assert kinds.index("tool_call") < kinds.index("tool_result") < kinds.index("agent_completed")
    [result] = of(streamed, "tool_result")
    assert result["ok"] is False
    assert result["content"] == "not run: a person rejected this call: too expensive today"
    assert tools.calls == []
    tool_message = scripted.calls(agent="calc")[-1].request.messages[-1]
    assert (tool_message.role, tool_message.content) == ("tool", result["content"])
    turn = (await client.get(f"/v1/turns/{streamed[0][1]['turn_id']}")).json()
    [row] = turn["tool_calls"]
    assert (row["approval"], row["ok"], row["result"]) == ("rejected", False, result["content"])
    assert turn["messages"][0]["content"] == "Rejected calculator (c-calc): too expensive today"


async def test_bad_decisions_are_refused_and_change_nothing(
    client: httpx.AsyncClient, scripted: ScriptedProvider, tools: TestTools
) -> None:
    _session, events = await _paused(client, scripted, ["calculator!"])
    paused_id = events[0][1]["turn_id"]
    unknown = await decide(client, paused_id, decisions(("c-calc", True, ""), ("nope", True, "")))
    assert unknown.status_code == 422
    assert "nope" in unknown.json()["detail"]
    assert "c-calc" in unknown.json()["detail"]
    twice = await decide(client, paused_id, decisions(("c-calc", True, ""), ("c-calc", False, "")))
    assert twice.status_code == 422
    assert "c-calc" in twice.json()["detail"]
    empty = await decide(client, paused_id, {"decisions": []})
    assert empty.status_code == 422
    missing = await decide(client, "00000000-0000-4000-8000-000000000000", decisions())
    assert missing.status_code == 422  # the body is checked first: at least one decision
    unknown_turn = await decide(
        client, "00000000-0000-4000-8000-000000000000", decisions(("c-calc", True, ""))
    )
    assert unknown_turn.status_code == 404
    assert tools.calls == []
    # Still paused: the right decision works after all the wrong ones.
    answer = await decide(client, paused_id, decisions(("c-calc", True, "")))
    assert answer.status_code == 201, answer.text


async def test_deciding_on_a_turn_that_is_not_awaiting_is_409(
    client: httpx.AsyncClient, scripted: ScriptedProvider, tools: TestTools
) -> None:
    scripted.script(gated_agent, agent="calc")
    session_id = await agent_session(client, ["calculator"])  # not gated: it just runs
    events = await stream_turn(client, session_id, {"message": "what is 17*23?"})
    assert events[-1][1]["status"] == "completed"
    response = await decide(client, events[0][1]["turn_id"], decisions(("c-calc", True, "")))
    assert response.status_code == 409
    assert "not awaiting approval" in response.json()["detail"]


async def test_a_missing_decision_is_422_naming_the_call(
    client: httpx.AsyncClient, scripted: ScriptedProvider, tools: TestTools
) -> None:
    _session, events = await _paused(client, scripted, ["calculator!", "echo!"])
    paused_id = events[0][1]["turn_id"]
    assert [r["call_id"] for r in of(events, "approval_required")] == ["c-calc", "c-echo"]
    response = await decide(client, paused_id, decisions(("c-calc", True, "")))
    assert response.status_code == 422
    assert "c-echo" in response.json()["detail"]
    both = await decide(client, paused_id, decisions(("c-echo", False, "no"), ("c-calc", True, "")))
    assert both.status_code == 201, both.text
    rows = [(r["call_id"], r["approval"]) for r in both.json()["tool_calls"]]
    assert rows == [("c-calc", "approved"), ("c-echo", "rejected")]
    assert tools.calls == [("calculator", {"expression": "17*23"})]
