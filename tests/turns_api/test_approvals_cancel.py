"""Cancelling a turn that waits for approval (ADR 0030): ``POST /v1/turns/{id}/cancel``
rejects every pending call, records a ``cancelled`` continuation that runs nothing (no
tool, no model call) and frees the session; a decision after it, or a second cancel, is
409 naming the continuation."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.engine.toolbox import TestTools, calculator, use_tools
from tests.sse_client import read_events, stream_turn, types
from tests.turns_api.approvals_helpers import (
    agent_session,
    decide,
    decisions,
    echo,
    gated_agent,
    room_session,
)


@pytest.fixture
def tools(app: FastAPI) -> TestTools:
    runner = TestTools({"calculator": calculator, "echo": echo})
    use_tools(app, runner)
    return runner


async def test_cancelling_a_paused_turn_rejects_its_calls_and_frees_the_session(
    client: httpx.AsyncClient, scripted: ScriptedProvider, tools: TestTools
) -> None:
    scripted.script(gated_agent, agent="calc")
    session_id = await agent_session(client, ["calculator!", "echo!"])
    events = await stream_turn(client, session_id, {"message": "what is 17*23?"})
    assert events[-1][1]["status"] == "awaiting_approval"
    paused_id = events[0][1]["turn_id"]
    model_calls = len(scripted.calls(agent="calc"))

    response = await client.post(f"/v1/turns/{paused_id}/cancel")
    assert response.status_code == 200, response.text
    cancelled = response.json()
    assert (cancelled["status"], cancelled["continues"]) == ("cancelled", paused_id)
    assert cancelled["message"] == (
        "Rejected calculator (c-calc): the turn was cancelled\n"
        "Rejected echo (c-echo): the turn was cancelled"
    )
    # Nothing ran: no tool, no further model call.
    assert tools.calls == []
    assert len(scripted.calls(agent="calc")) == model_calls
    detail = (await client.get(f"/v1/turns/{cancelled['id']}")).json()
    assert (detail["llm_calls"], detail["tool_calls"]) == ([], [])
    recorded = await read_events(client, cancelled["id"])
    assert types(recorded) == ["turn_started", "turn_completed"]
    assert recorded[0][1]["continues"] == paused_id
    assert recorded[-1][1]["status"] == "cancelled"

    # Decided now: neither a decision nor another cancel goes through.
    again = await client.post(f"/v1/turns/{paused_id}/cancel")
    assert again.status_code == 409
    assert again.json()["continued_by"] == cancelled["id"]
    late = await decide(client, paused_id, decisions(("c-calc", True, ""), ("c-echo", True, "")))
    assert late.status_code == 409
    assert tools.calls == []
    # The session takes a new message.
    later = await client.post(f"/v1/sessions/{session_id}/turns", json={"message": "hello"})
    assert later.status_code == 201, later.text
    listed = (await client.get(f"/v1/sessions/{session_id}/turns")).json()["items"]
    assert [t["status"] for t in listed] == ["awaiting_approval", "cancelled", "awaiting_approval"]


async def test_a_paused_orchestrator_round_is_cancelled_before_its_synthesis(
    client: httpx.AsyncClient, scripted: ScriptedProvider, tools: TestTools
) -> None:
    scripted.script(gated_agent, agent="calc")
    scripted.script('{"agents": ["plain", "calc"]}', purpose="route")
    scripted.script("Plain answer.", agent="plain")
    session_id = await room_session(client, "orchestrator", ["calculator!"], ["plain"])
    events = await stream_turn(client, session_id, {"message": "what is 17*23?"})
    assert events[-1][1]["status"] == "awaiting_approval"
    calls = len(scripted.calls())

    response = await client.post(f"/v1/turns/{events[0][1]['turn_id']}/cancel")
    assert response.status_code == 200, response.text
    assert response.json()["status"] == "cancelled"
    assert len(scripted.calls()) == calls  # no synthesis, no further round
    assert tools.calls == []


async def test_cancelling_a_finished_or_unknown_turn_is_still_refused(
    client: httpx.AsyncClient, scripted: ScriptedProvider, tools: TestTools
) -> None:
    scripted.script(gated_agent, agent="calc")
    session_id = await agent_session(client, ["calculator"])  # not gated: it just runs
    events = await stream_turn(client, session_id, {"message": "what is 17*23?"})
    assert events[-1][1]["status"] == "completed"
    finished = await client.post(f"/v1/turns/{events[0][1]['turn_id']}/cancel")
    assert finished.status_code == 409
    assert "completed" in finished.json()["detail"]
    unknown = await client.post("/v1/turns/00000000-0000-4000-8000-000000000000/cancel")
    assert unknown.status_code == 404
