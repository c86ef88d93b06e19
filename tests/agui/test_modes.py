"""Every mode's turn as an AG-UI run: one attributed message per agent invocation (each a
subagent of the room), steps for rounds, routing, evaluations, the synthesis and stages,
tool calls, failures, usage; every stream well formed (``assert_well_formed``)."""

from __future__ import annotations

import json
from typing import Any

import httpx
from fastapi import FastAPI

from pantheon.llm.errors import Unavailable
from pantheon.llm.providers.scripted import ScriptedProvider, ScriptedReply, tool_call
from pantheon.llm.types import LLMRequest
from tests.agui.conftest import (
    SPECIALISTS,
    assert_well_formed,
    kinds,
    of,
    run_events,
    run_input,
    script_four_specialists,
    texts,
)
from tests.engine.toolbox import TestTools, calculator, use_tools
from tests.factories import create_agent, create_room


def steps(events: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [
        (e["type"], e["stepName"]) for e in events if e["type"] in ("STEP_STARTED", "STEP_FINISHED")
    ]


def named(events: list[dict[str, Any]]) -> list[tuple[str | None, str]]:
    """(name, text) of each text message, in the order they started."""
    return [(name, text) for name, _run, text in texts(events).values()]


async def test_orchestrator_specialists_are_concurrent_attributed_subagents(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    script_four_specialists(scripted)
    room = await create_room(client, SPECIALISTS, mode="orchestrator")
    body = run_input()
    events = await run_events(client, room["id"], body)
    assert_well_formed(events)
    started = events[0]
    assert (started["threadId"], started["runId"]) == (body["threadId"], body["runId"])
    assert started["protocolVersion"] == "1.0"
    turn_id = started["metadata"]["pantheon"]["turn_id"]
    assert steps(events) == [
        ("STEP_STARTED", "round 1"),
        ("STEP_STARTED", "routing 1"),
        ("STEP_FINISHED", "routing 1"),
        ("STEP_FINISHED", "round 1"),
        ("STEP_STARTED", "evaluation 1"),
        ("STEP_FINISHED", "evaluation 1"),
        ("STEP_STARTED", "synthesis"),
        ("STEP_FINISHED", "synthesis"),
    ]
    routing = [e for e in events if e.get("stepName") == "routing 1"][1]
    assert routing["metadata"]["pantheon"]["agents"] == SPECIALISTS
    messages = texts(events)
    subagents = {e["subagentRunId"]: e["name"] for e in of(events, "SUBAGENT_STARTED")}
    for seq, key in enumerate(SPECIALISTS, start=1):
        name, run, text = messages[f"{turn_id}:{seq}"]
        assert (name, text) == (key.title(), f"{key} says hello from its part")
        assert subagents[run] == key.title()
    assert messages[f"{turn_id}:5"] == ("Manager", None, "the combined answer")
    assert len(of(events, "SUBAGENT_FINISHED")) == len(SPECIALISTS)
    usage = [e["value"] for e in of(events, "CUSTOM") if e["name"] == "pantheon.usage"]
    assert [u.get("agent_key") for u in usage] == [*SPECIALISTS, None]
    turn = (await client.get(f"/v1/turns/{turn_id}")).json()
    done = events[-1]
    assert done["outcome"] == {"type": "success"}
    assert done["result"]["status"] == "completed"
    assert done["usage"] == [
        {
            "inputTokens": turn["usage"]["input_tokens"],
            "outputTokens": turn["usage"]["output_tokens"],
            "totalTokens": turn["usage"]["input_tokens"] + turn["usage"]["output_tokens"],
        }
    ]


async def test_roundtable_and_manual_are_one_message_per_agent(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script("from alpha", agent="alpha")
    scripted.script("from beta", agent="beta")
    room = await create_room(client, ["alpha", "beta"], mode="roundtable")
    events = await run_events(client, room["id"], run_input("hello all"))
    assert_well_formed(events)
    assert named(events) == [("Alpha", "from alpha"), ("Beta", "from beta")]
    assert steps(events) == []
    manual = run_input("@beta only you", forwardedProps={"pantheon": {"mode": "manual"}})
    events = await run_events(client, room["id"], manual)
    assert_well_formed(events)
    assert named(events) == [("Beta", "from beta")]


async def test_pipeline_stages_are_steps_and_a_reused_stage_is_its_recorded_output(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script("draft one", agent="alpha")
    scripted.script("polished", agent="beta")
    room = await create_room(client, ["alpha", "beta"], mode="pipeline")
    first = run_input("write it")
    events = await run_events(client, room["id"], first)
    assert_well_formed(events)
    assert steps(events) == [
        ("STEP_STARTED", "stage 1"), ("STEP_FINISHED", "stage 1"),
        ("STEP_STARTED", "stage 2"), ("STEP_FINISHED", "stage 2"),
    ]  # fmt: skip
    assert named(events) == [("Alpha", "draft one"), ("Beta", "polished")]
    again = run_input(
        "polish again",
        thread=first["threadId"],
        forwardedProps={"pantheon": {"rerun_from": "beta"}},
    )
    events = await run_events(client, room["id"], again)
    assert_well_formed(events)
    assert named(events) == [("Alpha", "draft one"), ("Beta", "polished")]
    assert len(of(events, "SUBAGENT_STARTED")) == 1  # only beta ran; alpha's is reused
    reused = of(events, "TEXT_MESSAGE_START")[0]
    assert reused["metadata"] == {"pantheon": {"agent_key": "alpha", "reused": True}}


async def test_review_rounds_are_steps_and_verdicts_custom_events(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script("the draft", agent="alpha")
    verdict = {"approved": True, "score": 9, "feedback": "good"}
    scripted.script(json.dumps(verdict), agent="beta")
    room = await create_room(client, ["alpha", "beta"], mode="review")
    events = await run_events(client, room["id"], run_input("review this"))
    assert_well_formed(events)
    assert steps(events) == [("STEP_STARTED", "round 1"), ("STEP_FINISHED", "round 1")]
    assert [n for n, _t in named(events)] == ["Alpha", "Beta"]
    customs = {e["name"]: e["value"] for e in of(events, "CUSTOM")}
    assert customs["pantheon.review"]["approved"] is True
    assert customs["pantheon.review_completed"]["text"] == "the draft"


def _calculating(request: LLMRequest) -> ScriptedReply:
    if request.messages[-1].role == "tool":
        return ScriptedReply(f"It is {request.messages[-1].content}.")
    return ScriptedReply(
        "Let me compute. ", (tool_call("calculator", {"expression": "6*7"}, "c-1"),)
    )


async def test_tool_calls_belong_to_the_agents_message(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    use_tools(app, TestTools({"calculator": calculator}))
    scripted.script(_calculating, agent="calc")
    room = await create_room(client, [], mode="roundtable")
    calc = await create_agent(client, "calc", tools=["calculator"])
    await client.post(f"/v1/rooms/{room['id']}/agents", json={"agent_id": calc["id"]})
    events = await run_events(client, room["id"], run_input("6*7?"))
    assert_well_formed(events)
    [message] = of(events, "TEXT_MESSAGE_START")
    start, args, end, result = (
        of(events, kind)[0]
        for kind in ("TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT")
    )
    assert (start["toolCallId"], start["toolCallName"]) == ("c-1", "calculator")
    assert start["parentMessageId"] == message["messageId"]
    assert json.loads(args["delta"]) == {"expression": "6*7"}
    assert end["toolCallId"] == result["toolCallId"] == "c-1"
    assert (result["content"], result["role"]) == ("42", "tool")
    assert result["metadata"]["pantheon"]["ok"] is True
    assert named(events) == [("Calc", "Let me compute. It is 42.")]


async def test_a_failed_specialist_is_a_subagent_error_and_the_run_goes_on(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    script_four_specialists(scripted)
    scripted.script(error=Unavailable("down"), agent="beta")
    room = await create_room(client, SPECIALISTS, mode="orchestrator")
    events = await run_events(client, room["id"], run_input())
    assert_well_formed(events)
    [failed] = of(events, "SUBAGENT_ERROR")
    beta = next(e for e in of(events, "SUBAGENT_STARTED") if e["name"] == "Beta")
    assert failed["subagentRunId"] == beta["subagentRunId"]
    assert failed["code"] == "unavailable"
    assert events[-1]["type"] == "RUN_FINISHED"
    assert events[-1]["result"]["status"] == "partial"


async def test_every_specialist_failing_is_the_runs_error(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script('{"agents": ["alpha"]}', purpose="route")
    scripted.script(error=Unavailable("down"), agent="alpha")
    room = await create_room(client, ["alpha"], mode="orchestrator")
    events = await run_events(client, room["id"], run_input())
    assert_well_formed(events)
    last = events[-1]
    assert last["type"] == "RUN_ERROR"
    assert "Alpha failed" in last["message"]
    assert "synthesis" not in [name for _kind, name in steps(events)]


async def test_a_failed_synthesis_closes_its_message_and_step(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script('{"agents": ["alpha"]}', purpose="route")
    scripted.script("alpha's part", agent="alpha")
    scripted.script("half an ans", purpose="synthesis", error=Unavailable("down"), error_at_chunk=2)
    room = await create_room(client, ["alpha"], mode="orchestrator")
    events = await run_events(client, room["id"], run_input())
    assert_well_formed(events)
    assert ("STEP_FINISHED", "synthesis") in steps(events)
    assert named(events)[-2:] == [("Manager", "half an "), ("Manager", "alpha's part")]
    fallback = [e for e in of(events, "CUSTOM") if e["name"] == "pantheon.synthesis_fallback"]
    assert fallback[0]["value"]["reason"] == "unavailable"
    assert events[-1]["result"]["status"] == "partial"
    assert kinds(events).count("SUBAGENT_ERROR") == 0  # the synthesis is the room's own


async def test_the_apps_context_is_every_agents_instructions(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    """``context`` entries reach every agent's system prompt, as the user's instructions; an
    entry without a value is left out, and a run without context adds nothing."""
    scripted.script("from alpha", agent="alpha")
    scripted.script("from beta", agent="beta")
    room = await create_room(client, ["alpha", "beta"], mode="roundtable")
    context = [
        {"description": "The page the user is on", "value": "Invoice INV-7 (overdue)"},
        {"description": "", "value": "Currency: EUR"},
        {"description": "Selection", "value": "  "},
    ]
    events = await run_events(client, room["id"], run_input("what now?", context=context))
    assert named(events) == [("Alpha", "from alpha"), ("Beta", "from beta")]
    expected = (
        "The user's instructions:\nContext from the user's app:\n"
        "- The page the user is on: Invoice INV-7 (overdue)\n- Currency: EUR"
    )
    for key in ("alpha", "beta"):
        system = scripted.calls(agent=key)[-1].request.messages[0]
        assert system.role == "system"
        assert system.content.endswith(expected)
        assert "Selection" not in system.content

    await run_events(client, room["id"], run_input("and then?"))
    assert (
        "Context from the user's app"
        not in scripted.calls(agent="alpha")[-1].request.messages[0].content
    )
