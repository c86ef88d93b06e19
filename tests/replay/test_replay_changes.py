"""A replay with changes pays only for the calls whose inputs changed (and tool calls
whose arguments the record does not hold); the rest is served from the record."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import httpx
from fastapi import FastAPI

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.engine.toolbox import TestTools, calculating_agent, calculator, use_tools
from tests.replay.helpers import as_original, streamed
from tests.turns_api.test_public_streams import _session


def _orchestrate(scripted: ScriptedProvider) -> None:
    """Two rounds: calc and plain, then plain again; then the synthesis."""
    scripted.script('{"agents": ["plain"]}', purpose="route")
    scripted.script('{"agents": ["calc", "plain"]}', purpose="route", times=1)
    scripted.script('{"continue": true}', purpose="evaluate", times=1)


def _paid(scripted: ScriptedProvider, since: int) -> list[tuple[str, str | None]]:
    return [(r.request.purpose, r.request.agent_key) for r in scripted.requests[since:]]


async def test_changing_one_agents_model_pays_its_calls_and_what_depends_on_them(
    client: httpx.AsyncClient, scripted: ScriptedProvider, app: FastAPI
) -> None:
    use_tools(app, TestTools())
    scripted.script(calculating_agent, agent="calc")
    scripted.script("plain says 391", agent="plain")
    scripted.script("the other model says 390", model="other")
    _orchestrate(scripted)
    session_id = await _session(client, "orchestrator")
    original = await streamed(client, f"/v1/sessions/{session_id}/turns", {"message": "17*23?"})
    assert original.turn["rounds"] == 2
    # The paid evaluation after round 1 reads the script again (round 2's routing
    # finds the lasting rule: plain).
    scripted.script('{"continue": true}', purpose="evaluate", times=1)
    before = len(scripted.requests)

    body = {"agents": {"plain": {"model": "other"}}}
    replay = await streamed(client, f"/v1/turns/{original.turn['id']}/replay", body)

    # Served: round 1's routing and calc's two calls (its prompt has no round-1 output).
    # Paid: plain's calls, and every manager call that reads plain's answers.
    assert sorted(_paid(scripted, before), key=str) == sorted(
        [
            ("specialist", "plain"), ("evaluate", "manager"), ("route", "manager"),
            ("specialist", "plain"), ("evaluate", "manager"), ("synthesis", "manager"),
        ],
        key=str,
    )  # fmt: skip
    served = [(c["purpose"], c["agent_key"]) for c in replay.turn["llm_calls"] if c["replayed"]]
    assert sorted(served, key=str) == sorted(
        [("route", "manager"), ("specialist", "calc"), ("specialist", "calc")], key=str
    )
    plain = [m["content"] for m in replay.turn["messages"] if m["agent_key"] == "plain"]
    assert plain == ["the other model says 390"] * 2


async def test_changing_a_role_prompt_pays_whoever_reads_it_and_reuses_tool_results(
    client: httpx.AsyncClient, scripted: ScriptedProvider, app: FastAPI
) -> None:
    async def slow_calculator(args: Mapping[str, Any]) -> str:
        await asyncio.sleep(0.02)  # a duration the replay must report as recorded
        return await calculator(args)

    tools = TestTools({"calculator": slow_calculator})
    use_tools(app, tools)
    scripted.script(calculating_agent, agent="calc")
    session_id = await _session(client, "roundtable")
    original = await streamed(client, f"/v1/sessions/{session_id}/turns", {"message": "17*23?"})
    exact = await streamed(client, f"/v1/turns/{original.turn['id']}/replay", {})
    assert as_original(exact, original) == original.lines  # the duration included
    before, ran = len(scripted.requests), len(tools.calls)

    body = {"agents": {"calc": {"role_prompt": "You compute, tersely."}}}
    replay = await streamed(client, f"/v1/turns/{original.turn['id']}/replay", body)

    # Every call is paid: calc's prompt changed, and plain's system prompt names calc's
    # role. The calculator is not run again (same agent, tool and arguments).
    assert _paid(scripted, before) == [
        ("specialist", "plain"), ("specialist", "calc"), ("specialist", "calc"),
    ]  # fmt: skip
    assert len(tools.calls) == ran
    assert not any(c["replayed"] for c in replay.turn["llm_calls"])
    results = [(c["result"], c["duration_ms"]) for c in replay.turn["tool_calls"]]
    assert results == [(c["result"], c["duration_ms"]) for c in original.turn["tool_calls"]]


async def test_a_new_description_pays_every_call_that_reads_it(
    client: httpx.AsyncClient, scripted: ScriptedProvider, app: FastAPI
) -> None:
    use_tools(app, TestTools())
    session_id = await _session(client, "roundtable")
    original = await streamed(client, f"/v1/sessions/{session_id}/turns", {"message": "hello"})
    before = len(scripted.requests)
    body = {"description": "A room that answers in French."}
    replay = await streamed(client, f"/v1/turns/{original.turn['id']}/replay", body)
    assert len(scripted.requests) - before == len(original.turn["llm_calls"])
    assert not any(c["replayed"] for c in replay.turn["llm_calls"])


async def test_another_mode_runs_the_recorded_message_in_it(
    client: httpx.AsyncClient, scripted: ScriptedProvider, app: FastAPI
) -> None:
    use_tools(app, TestTools())
    session_id = await _session(client, "roundtable")
    original = await streamed(client, f"/v1/sessions/{session_id}/turns", {"message": "hello"})
    replay = await streamed(client, f"/v1/turns/{original.turn['id']}/replay", {"mode": "pipeline"})
    assert replay.turn["mode"] == "pipeline"
    assert replay.turn["status"] == "completed"
