"""An agent whose calls end with no text at all fails with ``empty_answer`` in every mode,
like any failed agent: never a silent, empty ``agent_completed`` (issue 21, item 7)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from pantheon.llm.providers.scripted import ScriptedProvider, ScriptedReply, tool_call
from pantheon.llm.types import LLMRequest
from tests.engine.toolbox import TestTools, use_tools
from tests.factories import create_agent, create_room, create_session
from tests.sse_client import Event, stream_turn, types


@pytest.fixture
def tools(app: FastAPI) -> TestTools:
    runner = TestTools()
    use_tools(app, runner)
    return runner


def _of(events: list[Event], kind: str) -> list[dict[str, Any]]:
    return [data for _, data in events if data["type"] == kind]


async def _turn(client: httpx.AsyncClient, session_id: str, message: str) -> dict[str, Any]:
    events = await stream_turn(client, session_id, {"message": message})
    turn: dict[str, Any] = (await client.get(f"/v1/turns/{events[-1][1]['turn_id']}")).json()
    turn["events"] = events
    return turn


async def _room_turn(
    client: httpx.AsyncClient, keys: list[str], mode: str, message: str = "hi"
) -> dict[str, Any]:
    room = await create_room(client, keys, mode=mode)
    return await _turn(client, str((await create_session(client, room["id"]))["id"]), message)


def _silent_after_the_tool(request: LLMRequest) -> ScriptedReply:
    """A small model's habit: it calls the calculator, then answers nothing."""
    if request.messages[-1].role == "tool":
        return ScriptedReply("")
    return ScriptedReply("", (tool_call("calculator", {"expression": "17*23"}),))


async def test_a_tool_agent_that_answers_nothing_fails_the_standalone_turn(
    client: httpx.AsyncClient, scripted: ScriptedProvider, tools: TestTools
) -> None:
    scripted.script(_silent_after_the_tool, agent="calc")
    calc = await create_agent(client, "calc", tools=["calculator"])
    session = await client.post(f"/v1/agents/{calc['id']}/sessions", json={"title": "t"})
    turn = await _turn(client, session.json()["id"], "what is 17*23?")
    events = turn["events"]
    assert tools.calls == [("calculator", {"expression": "17*23"})]
    assert "agent_completed" not in types(events)
    failed = _of(events, "agent_failed")
    assert [(f["agent_key"], f["code"]) for f in failed] == [("calc", "empty_answer")]
    assert failed[0]["error"] == "The model answered with no text."
    assert _of(events, "turn_completed")[0]["status"] == "failed"
    assert turn["status"] == "failed"
    assert turn["output"] == "Calc: [failed: empty_answer]"
    assert [c["status"] for c in turn["llm_calls"]] == ["ok", "ok"]  # the calls did end


async def test_a_blank_answer_in_a_roundtable_is_skipped_and_the_turn_partial(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script(" \n\t", agent="quiet")
    turn = await _room_turn(client, ["quiet", "loud"], "roundtable")
    failed = _of(turn["events"], "agent_failed")
    assert [(f["agent_key"], f["code"]) for f in failed] == [("quiet", "empty_answer")]
    assert [c["agent_key"] for c in _of(turn["events"], "agent_completed")] == ["loud"]
    assert turn["status"] == "partial"
    loud = scripted.calls(agent="loud")[0].request.messages[-1].content
    assert "Quiet" not in loud  # later agents see only successful answers


async def test_an_empty_synthesis_is_a_failed_manager_and_the_turn_partial(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script('{"agents": ["alice"]}', purpose="route")
    scripted.script("", purpose="synthesis")
    turn = await _room_turn(client, ["alice"], "orchestrator")
    failed = _of(turn["events"], "agent_failed")
    assert [(f["agent_key"], f["code"]) for f in failed] == [("manager", "empty_answer")]
    fallback = _of(turn["events"], "synthesis_completed")
    assert [(f["fallback"], f["reason"]) for f in fallback] == [(True, "empty_answer")]
    assert turn["status"] == "partial"


async def test_when_every_specialist_answers_nothing_there_is_no_synthesis(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script('{"agents": ["alice", "bob"]}', purpose="route")
    scripted.script("", agent="alice")
    scripted.script("", agent="bob")
    turn = await _room_turn(client, ["alice", "bob"], "orchestrator")
    assert [f["code"] for f in _of(turn["events"], "agent_failed")] == ["empty_answer"] * 2
    assert scripted.calls(purpose="synthesis") == []
    assert turn["status"] == "failed"


async def test_an_empty_stage_stops_the_pipeline(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script("outline", agent="first")
    scripted.script("", agent="second")
    turn = await _room_turn(client, ["first", "second", "third"], "pipeline")
    assert [f["agent_key"] for f in _of(turn["events"], "agent_failed")] == ["second"]
    assert scripted.calls(agent="third") == []
    assert turn["status"] == "partial"


async def test_an_empty_draft_fails_the_review_and_an_empty_review_is_a_fallback(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    room = await create_room(client, ["writer", "critic"], mode="review")
    session_id = str((await create_session(client, room["id"]))["id"])
    scripted.script("", agent="writer")
    turn = await _turn(client, session_id, "a haiku, please")
    assert _of(turn["events"], "review_completed")[0]["reason"] == "draft_failed"
    assert turn["status"] == "failed"
    scripted.script("a haiku", agent="writer")
    scripted.script("", agent="critic")
    turn = await _turn(client, session_id, "another one")
    review = _of(turn["events"], "review")[0]
    assert (review["approved"], review["score"], review["fallback"]) == (False, None, True)
    assert turn["status"] == "partial"
