"""Turn traces received by an in-process OTLP/HTTP collector: the span tree (parents,
names, GenAI attributes) of each mode, of a cancelled turn, and an incoming
``traceparent`` honoured."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from fastapi import FastAPI

from pantheon.llm.providers.scripted import ScriptedProvider, ScriptedReply, tool_call
from pantheon.settings import Settings
from tests.engine.toolbox import TestTools, calculating_agent, hang, use_tools
from tests.factories import add_to_room, create_agent, create_room, create_session
from tests.modes import modes_where
from tests.observability.otlp import OtlpReceiver, Span, children, one, otel_env, roots
from tests.waiting import until

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
CALLER_SPAN = "00f067aa0ba902b7"


@pytest.fixture
def settings(
    settings: Settings, receiver: OtlpReceiver, monkeypatch: pytest.MonkeyPatch
) -> Settings:
    """Tracing on (the standard variables), before the app starts."""
    for name, value in otel_env(receiver).items():
        monkeypatch.setenv(name, value)
    return settings


async def _trace(receiver: OtlpReceiver, turn_id: str) -> list[Span]:
    """Every span of the turn's trace, once its turn span has arrived."""

    def arrived(spans: list[Span]) -> bool:
        return any(s.attributes.get("pantheon.turn.id") == turn_id for s in roots(spans))

    spans = await receiver.wait_for(arrived)
    root = next(s for s in roots(spans) if s.attributes["pantheon.turn.id"] == turn_id)
    trace = receiver.trace(root.trace_id)
    ids = {span.span_id for span in trace}
    assert all(span.parent_id in ids for span in trace if span is not root)
    assert [span for span in trace if span.parent_id not in ids] == [root]
    return trace


async def _turn(client: httpx.AsyncClient, session: str, **kwargs: object) -> dict[str, object]:
    url = f"/v1/sessions/{session}/turns"
    response = await client.post(url, json={"message": "@alpha @beta what is 17*23?"}, **kwargs)  # type: ignore[arg-type]
    assert response.status_code == 201, response.text
    turn: dict[str, object] = response.json()
    return turn


async def _orchestrated(app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider) -> str:
    use_tools(app, TestTools())
    scripted.script(calculating_agent, agent="calc")
    scripted.script('{"agents": ["plain"]}', purpose="route")
    scripted.script('{"agents": ["calc"]}', purpose="route", times=1)  # round 1
    scripted.script('{"continue": false}', purpose="evaluate")
    scripted.script('{"continue": true}', purpose="evaluate", times=1)  # after round 1
    calc = await create_agent(client, "calc", tools=["calculator"])
    room = await create_room(client, ["plain"], mode="orchestrator")
    await add_to_room(client, room["id"], calc["id"])
    return str((await create_session(client, room["id"]))["id"])


async def test_an_orchestrator_turn_of_two_rounds_and_a_tool_call(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider, receiver: OtlpReceiver
) -> None:
    session = await _orchestrated(app, client, scripted)
    turn = await _turn(client, session)
    assert turn["status"] == "completed"
    assert turn["rounds"] == 2
    spans = await _trace(receiver, str(turn["id"]))
    root = one(spans, "turn orchestrator")
    assert root.parent_id is None
    assert not root.error
    assert root.attributes["pantheon.turn.status"] == "completed"
    assert root.attributes["gen_ai.conversation.id"] == session
    assert "pantheon.room.id" in root.attributes
    assert "gen_ai.input.messages" not in root.attributes  # content only on opt-in
    assert root.service == "pantheon-test"
    top = children(spans, root)
    steps = [(s.name, s.attributes.get("pantheon.round")) for s in top if "chat" not in s.name]
    assert sorted(steps, key=str) == sorted(
        [("route", 1), ("invoke_agent Calc", 1), ("evaluate", 1),
         ("route", 2), ("invoke_agent Plain", 2), ("evaluate", 2), ("synthesize", None)],
        key=str,
    )  # fmt: skip
    for step in (s for s in top if s.name in ("route", "evaluate", "synthesize")):
        (call,) = children(spans, step)
        assert call.name == "chat scripted"
        assert call.attributes["gen_ai.operation.name"] == "chat"
        assert call.attributes["pantheon.llm.purpose"] in ("route", "evaluate", "synthesis")
    calc = one(spans, "invoke_agent Calc")
    assert calc.attributes["gen_ai.agent.id"] == "calc"
    assert calc.attributes["gen_ai.operation.name"] == "invoke_agent"
    under_calc = children(spans, calc)
    chats = sorted((s for s in under_calc if s.name.startswith("chat")), key=lambda s: s.start_ns)
    assert [c.attributes["gen_ai.response.finish_reasons"] for c in chats] == [
        ["tool_calls"],
        ["stop"],
    ]
    for chat in chats:
        assert chat.kind == 3  # SPAN_KIND_CLIENT
        assert chat.attributes["pantheon.model.alias"] == "scripted"
        assert chat.attributes["gen_ai.usage.input_tokens"] > 0
        assert chat.attributes["gen_ai.usage.output_tokens"] > 0
        assert chat.attributes["pantheon.llm.retries"] == 0
        assert "pantheon.llm.ttft_ms" in chat.attributes
        assert "pantheon.llm.cost_usd" in chat.attributes
    tool = one(under_calc, "execute_tool calculator")
    assert tool.attributes["gen_ai.tool.name"] == "calculator"
    assert tool.attributes["pantheon.tool.server"] == "builtin"
    assert tool.attributes["pantheon.tool.outcome"] == "ok"
    assert "gen_ai.tool.call.result" not in tool.attributes
    assert chats[0].end_ns <= tool.end_ns
    assert root.start_ns <= min(s.start_ns for s in spans)
    assert root.end_ns >= max(s.end_ns for s in spans)


# Orchestrator (and standalone, on an agent) turns have their own tests.
@pytest.mark.parametrize(
    "mode", modes_where(lambda s: s.session == "room" and s.name != "orchestrator")
)
async def test_every_other_mode_has_its_agents_and_calls_under_the_turn(
    client: httpx.AsyncClient, scripted: ScriptedProvider, receiver: OtlpReceiver, mode: str
) -> None:
    room = await create_room(client, ["alpha", "beta"], mode=mode)
    session = str((await create_session(client, room["id"]))["id"])
    turn = await _turn(client, session, headers={})
    spans = await _trace(receiver, str(turn["id"]))
    root = one(spans, f"turn {mode}")
    assert root.attributes["pantheon.turn.mode"] == mode
    assert root.attributes["pantheon.turn.status"] == turn["status"]
    agents = [s for s in spans if s.name.startswith("invoke_agent ")]
    assert agents
    assert all(s.parent_id == root.span_id for s in agents)
    calls = [s for s in spans if s.name.startswith("chat ")]
    assert len(calls) == len(turn["llm_calls"])  # type: ignore[arg-type]
    by_id = {s.span_id: s for s in spans}
    assert all(by_id[c.parent_id].name.startswith("invoke_agent") for c in calls if c.parent_id)


async def test_an_incoming_traceparent_is_the_turn_spans_parent(
    client: httpx.AsyncClient, receiver: OtlpReceiver
) -> None:
    room = await create_room(client, ["alpha"], mode="roundtable")
    session = str((await create_session(client, room["id"]))["id"])
    header = {"traceparent": f"00-{TRACE}-{CALLER_SPAN}-01"}
    turn = await _turn(client, session, headers=header)
    spans = await _trace(receiver, str(turn["id"]))
    root = one(spans, "turn roundtable")
    assert (root.trace_id, root.parent_id) == (TRACE, CALLER_SPAN)
    assert {s.trace_id for s in spans} == {TRACE}


async def test_a_malformed_traceparent_starts_a_trace_of_its_own(
    client: httpx.AsyncClient, receiver: OtlpReceiver
) -> None:
    room = await create_room(client, ["alpha"], mode="roundtable")
    session = str((await create_session(client, room["id"]))["id"])
    turn = await _turn(client, session, headers={"traceparent": f"00-{'0' * 32}-{CALLER_SPAN}-01"})
    root = one(await _trace(receiver, str(turn["id"])), "turn roundtable")
    assert root.parent_id is None
    assert root.trace_id != "0" * 32


async def test_a_cancelled_turn_closes_its_open_spans_as_cancelled(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider, receiver: OtlpReceiver
) -> None:
    tools = TestTools({"hang": hang})
    use_tools(app, tools)
    scripted.script(ScriptedReply("Waiting.", (tool_call("hang", {}, "stuck"),)), agent="calc")
    calc = await create_agent(client, "calc", tools=["hang"])
    created = await client.post(f"/v1/agents/{calc['id']}/sessions", json={"title": "t"})
    session = created.json()["id"]
    posted = asyncio.create_task(_turn(client, session))
    services = app.state.services
    await until(lambda: bool(tools.calls) and bool(services.live_turns.running()))
    turn_id = services.live_turns.running()[0].turn_id
    assert (await client.post(f"/v1/turns/{turn_id}/cancel")).status_code == 200
    assert (await posted)["status"] == "cancelled"
    spans = await _trace(receiver, turn_id)
    root = one(spans, "turn standalone")
    assert root.error
    assert root.attributes["pantheon.turn.status"] == "cancelled"
    agent = one(spans, "invoke_agent Calc")
    assert agent.parent_id == root.span_id
    assert agent.error
    assert agent.attributes["error.type"] == "cancelled"
    (chat,) = [s for s in children(spans, agent) if s.name.startswith("chat")]
    assert chat.attributes["gen_ai.response.finish_reasons"] == ["tool_calls"]
    tool = one(children(spans, agent), "execute_tool hang")
    assert tool.attributes["pantheon.tool.outcome"] == "error"
