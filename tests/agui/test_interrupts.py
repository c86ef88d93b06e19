"""Approvals as AG-UI interrupts: a gated tool call ends the run with the interrupt outcome,
the client resumes it with ``resume`` entries (through ``TurnService.decide``, as
``POST /v1/turns/{id}/approvals``), and the resumed run carries the call's result."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.agui.conftest import assert_well_formed, of, post_run, run_events, run_input, texts
from tests.engine.toolbox import TestTools, calculator, use_tools
from tests.factories import add_to_room, create_agent, create_room
from tests.turns_api.approvals_helpers import echo, gated_agent


@pytest.fixture
def tools(app: FastAPI) -> TestTools:
    runner = TestTools({"calculator": calculator, "echo": echo})
    use_tools(app, runner)
    return runner


async def _paused(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> tuple[str, dict[str, Any], list[dict[str, Any]]]:
    """A room whose agent calls a gated calculator: the room, the first run, its events."""
    scripted.script(gated_agent, agent="calc")
    room = await create_room(client, [], mode="roundtable")
    calc = await create_agent(client, "calc", tools=["calculator!", "echo"])
    await add_to_room(client, room["id"], calc["id"])
    body = run_input("what is 17*23?")
    return room["id"], body, await run_events(client, room["id"], body)


def _resume(thread: str, *entries: dict[str, Any]) -> dict[str, Any]:
    return run_input(None, thread=thread, resume=list(entries))


async def test_a_gated_call_ends_the_run_with_its_interrupt(
    client: httpx.AsyncClient, scripted: ScriptedProvider, tools: TestTools
) -> None:
    _room, _body, events = await _paused(client, scripted)
    assert_well_formed(events)
    outcome = events[-1]["outcome"]
    assert outcome["type"] == "interrupt"
    [interrupt] = outcome["interrupts"]
    assert (interrupt["id"], interrupt["reason"], interrupt["toolCallId"]) == (
        "c-calc", "tool_call", "c-calc",
    )  # fmt: skip
    assert interrupt["responseSchema"]["required"] == ["approved"]
    assert "calculator" in interrupt["message"]
    assert interrupt["metadata"]["pantheon"]["arguments"] == {"expression": "17*23"}
    # The call was announced (the client shows it) but has no result: it did not run.
    assert [e["toolCallId"] for e in of(events, "TOOL_CALL_START")] == ["c-calc", "c-echo"]
    assert [e["toolCallId"] for e in of(events, "TOOL_CALL_RESULT")] == ["c-echo"]
    [suspended] = of(events, "SUBAGENT_FINISHED")
    assert suspended["outcome"] == {"type": "suspended", "interruptIds": ["c-calc"]}
    assert tools.calls == [("echo", {"expression": "hi"})]


async def test_resuming_approved_runs_the_call_and_finishes(
    client: httpx.AsyncClient, scripted: ScriptedProvider, tools: TestTools
) -> None:
    room_id, body, _events = await _paused(client, scripted)
    approve = {"interruptId": "c-calc", "status": "resolved", "payload": {"approved": True}}
    resumed = _resume(body["threadId"], approve)
    events = await run_events(client, room_id, resumed)
    assert_well_formed(events)
    assert events[-1]["outcome"] == {"type": "success"}
    assert of(events, "TOOL_CALL_START") == []  # AG-UI: the interrupted run announced it
    [result] = of(events, "TOOL_CALL_RESULT")
    assert (result["toolCallId"], result["content"]) == ("c-calc", "391")
    assert [text for _n, _r, text in texts(events).values()] == ["Result: 391 | echo: hi"]
    assert ("calculator", {"expression": "17*23"}) in tools.calls
    # Posting the same resume again follows the continuation it started (no second one).
    again = await run_events(client, room_id, resumed)
    assert_well_formed(again)
    assert [e["type"] for e in again[:2]] == ["RUN_STARTED", "MESSAGES_SNAPSHOT"]
    assert again[0]["metadata"] == events[0]["metadata"]
    # The snapshot is the interrupted run as it was streamed: the agent's message with
    # both calls it announced, the ungated call's result; the gated one has none yet.
    user, calc, echoed = again[1]["messages"]
    assert (user["role"], user["content"]) == ("user", "what is 17*23?")
    assert (calc["name"], calc["content"]) == ("Calc", "Checking. ")
    assert [c["id"] for c in calc["toolCalls"]] == ["c-calc", "c-echo"]
    assert (echoed["role"], echoed["toolCallId"], echoed["content"]) == (
        "tool",
        "c-echo",
        "echo: hi",
    )
    assert [e["toolCallId"] for e in of(again, "TOOL_CALL_RESULT")] == ["c-calc"]
    assert tools.calls.count(("calculator", {"expression": "17*23"})) == 1


async def test_a_cancelled_interrupt_rejects_the_call(
    client: httpx.AsyncClient, scripted: ScriptedProvider, tools: TestTools
) -> None:
    room_id, body, _events = await _paused(client, scripted)
    cancel = {"interruptId": "c-calc", "status": "cancelled"}
    events = await run_events(client, room_id, _resume(body["threadId"], cancel))
    assert_well_formed(events)
    [result] = of(events, "TOOL_CALL_RESULT")
    assert "rejected" in result["content"]
    assert "cancelled in the AG-UI client" in result["content"]
    assert ("calculator", {"expression": "17*23"}) not in tools.calls


async def test_wrong_resumes_and_new_input_while_interrupted_are_run_errors(
    client: httpx.AsyncClient, scripted: ScriptedProvider, tools: TestTools
) -> None:
    room_id, body, _events = await _paused(client, scripted)
    thread = body["threadId"]
    # AG-UI: a thread with open interrupts takes no new input, only their answers.
    [blocked] = await run_events(client, room_id, run_input("hello?", thread=thread))
    assert (blocked["type"], blocked["code"]) == ("RUN_ERROR", "conflict")
    assert "awaiting approval" in blocked["message"]
    unknown = {"interruptId": "nope", "status": "resolved", "payload": {"approved": True}}
    [wrong] = await run_events(client, room_id, _resume(thread, unknown))
    assert (wrong["type"], wrong["code"]) == ("RUN_ERROR", "unprocessable")
    assert "c-calc" in wrong["message"]  # names the pending call
    # A payload that is no approval is a request error, before any event.
    bad = {"interruptId": "c-calc", "status": "resolved", "payload": {"ok": "yes"}}
    response = await post_run(client, room_id, _resume(thread, bad))
    assert response.status_code == 422
    assert "approved" in response.json()["detail"]
    # None of it decided anything: the right answer still resumes the run.
    approve = {"interruptId": "c-calc", "status": "resolved", "payload": {"approved": True}}
    events = await run_events(client, room_id, _resume(thread, approve))
    assert events[-1]["outcome"] == {"type": "success"}
