"""Retry one failed agent: a new turn of the session runs just that roster agent on the
same message (``agent`` in the turn request); every misuse is a 422 naming the problem,
and nothing runs (issue 24)."""

from __future__ import annotations

import httpx

from pantheon.llm.errors import UpstreamError
from pantheon.llm.providers.scripted import ScriptedProvider
from tests.factories import create_agent, create_room, create_session
from tests.sse_client import stream_turn, types


async def test_a_failed_agent_is_retried_alone_in_a_new_turn(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script("alpha's answer", agent="alpha")
    scripted.script(error=UpstreamError("upstream returned 500"), agent="beta", times=6)
    scripted.script('{"agents": ["alpha", "beta"]}', purpose="route")
    room = await create_room(client, ["alpha", "beta"], mode="orchestrator")
    session = (await create_session(client, room["id"]))["id"]
    first = await stream_turn(client, session, {"message": "hi both"})
    assert next(d for _, d in first if d["type"] == "agent_failed")["agent_key"] == "beta"
    assert first[-1][1]["status"] == "partial"
    before = len(scripted.requests)
    scripted.script("beta is back", agent="beta")
    retry = await stream_turn(client, session, {"message": "hi both", "agent": "beta"})
    assert types(retry) == [
        "turn_started", "agent_started", "delta", "delta", "delta", "agent_completed",
        "turn_completed",
    ]  # fmt: skip
    started = retry[0][1]
    assert started["agents"] == ["beta"]
    assert started["mode"] == "roundtable"  # no manager call: just that agent
    assert [r.request.agent_key for r in scripted.requests[before:]] == ["beta"]
    assert retry[-1][1]["status"] == "completed"
    turns = (await client.get(f"/v1/sessions/{session}/turns")).json()["items"]
    assert [t["message"] for t in turns] == ["hi both", "hi both"]
    # The retry saw the first turn's history, like any later turn.
    prompt = " ".join(m.content for m in scripted.requests[-1].request.messages)
    assert "alpha's answer" in prompt


async def test_a_retry_may_name_its_mode(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    room = await create_room(client, ["alpha", "beta"], mode="roundtable")
    session = (await create_session(client, room["id"]))["id"]
    body = {"message": "hi", "agent": "alpha", "mode": "orchestrator"}
    events = await stream_turn(client, session, body)
    assert events[0][1]["agents"] == ["alpha"]
    assert events[0][1]["mode"] == "orchestrator"
    assert events[-1][1]["status"] == "completed"


async def test_misused_agent_is_refused_before_anything_runs(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    room = await create_room(client, ["alpha", "beta"], mode="roundtable")
    session = (await create_session(client, room["id"]))["id"]
    solo = await create_agent(client, "solo")
    solo_session = await client.post(f"/v1/agents/{solo['id']}/sessions", json={})
    assert solo_session.status_code == 201, solo_session.text
    cases = [
        (session, {"message": "hi", "agent": "gamma"}, "agent 'gamma' is not in this room's"),
        (session, {"message": "hi", "agent": ""}, "at least 1 character"),
        (session, {"message": "hi", "agent": "alpha", "mode": "review"}, "at least two agents"),
        (session, {"message": "hi", "agent": "alpha", "rerun_from": "beta"}, "rerun_from"),
        (solo_session.json()["id"], {"message": "hi", "agent": "solo"}, "opened on one agent"),
    ]
    for target, body, needle in cases:
        response = await client.post(f"/v1/sessions/{target}/turns", json=body)
        assert response.status_code == 422, (body, response.text)
        assert needle in response.text, (body, response.text)
    refused = await client.post(
        f"/v1/sessions/{session}/turns", json={"message": "hi", "agent": "gamma"}
    )
    assert refused.json()["room_keys"] == ["alpha", "beta"]
    assert scripted.requests == []
    assert (await client.get(f"/v1/sessions/{session}/turns")).json()["items"] == []
