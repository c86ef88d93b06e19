"""An exact replay of a finished turn, in every mode: no upstream call, no tool run, and
the same SSE bytes as the original except the new turn's, session's and messages' ids."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from pantheon.llm.errors import BadRequest, Unavailable
from pantheon.llm.providers.scripted import ScriptedProvider
from tests.engine.toolbox import TestTools, calculating_agent, use_tools
from tests.modes import MODES, calc_session, question
from tests.replay.helpers import as_original, streamed


def _script(scripted: ScriptedProvider) -> None:
    scripted.script(calculating_agent, agent="calc")
    # plain answers word by word with pauses, so concurrent speakers' deltas interleave.
    scripted.script("plain thinks seventeen times twenty-three", agent="plain", chunk_delay_s=0.002)
    # Orchestrator: round 1 routes both (concurrently), round 2 only plain; then stop.
    scripted.script('{"agents": ["plain"]}', purpose="route")
    scripted.script('{"agents": ["calc", "plain"]}', purpose="route", times=1)
    scripted.script('{"continue": true}', purpose="evaluate", times=1)
    scripted.script("the synthesis", purpose="synthesis")


@pytest.mark.parametrize("mode", MODES)
async def test_exact_replay_streams_the_same_bytes_and_calls_nothing(
    client: httpx.AsyncClient, scripted: ScriptedProvider, app: FastAPI, mode: str
) -> None:
    tools = TestTools()
    use_tools(app, tools)
    _script(scripted)
    session_id = await calc_session(client, mode)
    url = f"/v1/sessions/{session_id}/turns"
    original = await streamed(client, url, {"message": question(mode)})
    assert original.turn["tool_calls"], "the turn called the calculator"
    upstream, ran = len(scripted.requests), len(tools.calls)

    replay = await streamed(client, f"/v1/turns/{original.turn['id']}/replay", {})

    assert len(scripted.requests) == upstream, "no upstream call"
    assert len(tools.calls) == ran, "no tool run"
    assert replay.turn["id"] != original.turn["id"]
    assert replay.turn["session_id"] != original.turn["session_id"]
    assert as_original(replay, original) == original.lines
    calls = replay.turn["llm_calls"]
    assert calls
    assert all(call["replayed"] for call in calls)
    assert replay.turn["usage"] == original.turn["usage"]
    session = (await client.get(f"/v1/sessions/{replay.turn['session_id']}")).json()
    assert session["replay_of"] == original.turn["id"]


async def test_orchestrator_rounds_interleave_as_recorded(
    client: httpx.AsyncClient, scripted: ScriptedProvider, app: FastAPI
) -> None:
    use_tools(app, TestTools())
    _script(scripted)
    session_id = await calc_session(client, "orchestrator")
    original = await streamed(client, f"/v1/sessions/{session_id}/turns", {"message": "17*23?"})
    assert original.turn["rounds"] == 2
    keys = [line for line in original.lines if '"type":"delta"' in line]
    assert any('"agent_key":"calc"' in k for k in keys)
    replay = await streamed(client, f"/v1/turns/{original.turn['id']}/replay", {})
    assert as_original(replay, original) == original.lines
    # And the JSON answer of a replay (no body at all: exact) is the new turn.
    response = await client.post(f"/v1/turns/{original.turn['id']}/replay")
    assert response.status_code == 201, response.text
    assert response.json()["output"] == original.turn["output"]


async def test_recorded_failures_are_replayed_as_they_happened(
    client: httpx.AsyncClient, scripted: ScriptedProvider, app: FastAPI
) -> None:
    """A call that failed mid-answer (after some text), and one the upstream refused as
    invalid, fail again at the same place with the same code and reason, uncalled."""
    use_tools(app, TestTools())
    scripted.script(
        "half of an answer that breaks", agent="plain", error=Unavailable("down"), error_at_chunk=3
    )
    refusal = BadRequest("400", refusal="the prompt is too long for this model")
    scripted.script("", agent="calc", error=refusal)
    session_id = await calc_session(client, "roundtable")
    original = await streamed(client, f"/v1/sessions/{session_id}/turns", {"message": "hi"})
    assert original.turn["status"] == "failed"
    assert [m["error_code"] for m in original.turn["messages"][1:]] == [
        "unavailable",
        "bad_request",
    ]
    upstream = len(scripted.requests)
    replay = await streamed(client, f"/v1/turns/{original.turn['id']}/replay", {})
    assert len(scripted.requests) == upstream
    assert as_original(replay, original) == original.lines
    assert "too long for this model" in "\n".join(replay.lines)
