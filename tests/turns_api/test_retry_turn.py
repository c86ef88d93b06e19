"""``POST /v1/turns/{id}/retry`` (ADR 0034): an orchestrator turn's failed agents run again
and the answer is a synthesis that includes them; or the synthesis alone runs again over
the recorded outputs. A new turn of the same session; misuse is refused, nothing runs."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from pantheon.llm.errors import UpstreamError
from pantheon.llm.providers.scripted import ScriptedProvider
from tests.engine.toolbox import TestTools, use_tools
from tests.factories import create_room, create_session
from tests.scripted_turns import FALLBACK_ANSWER, script_unreachable_manager
from tests.sse_client import read_events, stream_turn, types
from tests.turns_api.approvals_helpers import decide_streamed, decisions, gated_agent, room_session


@pytest.fixture
def tools(app: FastAPI) -> TestTools:
    runner = TestTools()
    use_tools(app, runner)
    return runner


async def _orchestrated(client: httpx.AsyncClient, roster: list[str]) -> str:
    room = await create_room(client, roster, mode="orchestrator")
    session: str = (await create_session(client, room["id"]))["id"]
    return session


async def _first(client: httpx.AsyncClient, session: str) -> dict[str, Any]:
    events = await stream_turn(client, session, {"message": "hi both"})
    turn: dict[str, Any] = (await client.get(f"/v1/turns/{events[0][1]['turn_id']}")).json()
    return turn


async def _retry(client: httpx.AsyncClient, turn_id: str, body: Any = None) -> httpx.Response:
    return await client.post(f"/v1/turns/{turn_id}/retry", json=body)


async def test_a_retried_agent_is_in_the_new_synthesis(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script('{"agents": ["alpha", "beta"]}', purpose="route")
    scripted.script("alpha's answer", agent="alpha")
    scripted.script(error=UpstreamError("upstream returned 500"), agent="beta", times=6)
    scripted.script('{"continue": false}', purpose="evaluate")
    scripted.script("alpha alone", purpose="synthesis")
    session = await _orchestrated(client, ["alpha", "beta"])
    first = await _first(client, session)
    assert first["status"] == "partial"
    before = len(scripted.requests)
    scripted.script("beta is back", agent="beta")
    scripted.script("alpha and beta together", purpose="synthesis")
    response = await _retry(client, first["id"], {"agents": ["beta"]})
    assert response.status_code == 201, response.text
    retry = response.json()
    assert (retry["session_id"], retry["status"]) == (session, "completed")
    assert retry["message"] == "hi both"
    made = [(r.request.purpose, r.request.agent_key) for r in scripted.requests[before:]]
    assert made == [("specialist", "beta"), ("synthesis", "manager")]
    synthesis_prompt = scripted.requests[-1].request.messages[-1].content
    assert "alpha's answer" in synthesis_prompt
    assert "beta is back" in synthesis_prompt
    assert [(m["agent_key"], m["content"]) for m in retry["messages"]] == [
        (None, "hi both"), ("beta", "beta is back"), ("manager", "alpha and beta together")
    ]  # fmt: skip
    events = await read_events(client, retry["id"])
    assert events[0][1]["retries"] == first["id"]
    assert types(events)[1] == "round_start"
    assert "routing" not in types(events)
    assert "evaluation" not in types(events)


async def test_the_synthesis_alone_runs_again_over_the_recorded_outputs(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    script_unreachable_manager(scripted)
    session = await _orchestrated(client, ["alpha", "beta"])
    first = await _first(client, session)
    assert first["messages"][-1]["status"] == "failed"  # the synthesis
    scripted.reset()
    scripted.script("a real synthesis", purpose="synthesis")
    retry = (await _retry(client, first["id"], {"agents": []})).json()
    assert [(r.request.purpose) for r in scripted.requests] == ["synthesis"]
    assert FALLBACK_ANSWER in scripted.requests[0].request.messages[-1].content
    assert [m["role"] for m in retry["messages"]] == ["user", "manager"]
    assert retry["status"] == "completed"
    # Without a body, a retry runs whatever failed: here the synthesis only.
    scripted.script(error=UpstreamError("upstream returned 500"), purpose="synthesis", times=6)
    second = (await _retry(client, first["id"])).json()
    assert second["status"] == "failed"  # nothing it ran succeeded; the fallback still answers
    events = await read_events(client, second["id"])
    assert events[-2][1]["type"] == "synthesis_completed"
    assert (events[-2][1]["fallback"], events[-2][1]["text"]) == (True, FALLBACK_ANSWER)


async def test_misuse_is_refused_and_nothing_runs(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script('{"agents": ["alpha", "beta"]}', purpose="route")
    scripted.script(error=UpstreamError("upstream returned 500"), agent="beta", times=6)
    session = await _orchestrated(client, ["alpha", "beta"])
    first = await _first(client, session)
    unknown = await _retry(client, "00000000-0000-0000-0000-000000000000")
    assert unknown.status_code == 404
    not_failed = await _retry(client, first["id"], {"agents": ["alpha"]})
    assert not_failed.status_code == 422
    assert "agent 'alpha' did not fail" in not_failed.text
    assert "beta" in not_failed.text
    wrong_field = await _retry(client, first["id"], {"agent": "beta"})
    assert wrong_field.status_code == 422
    alone = await _retry(client, first["id"], {"agents": []})
    assert alone.status_code == 409
    assert "synthesis did not fail" in alone.text
    table = await create_room(client, ["gamma", "delta"], mode="roundtable")
    other = (await create_session(client, table["id"]))["id"]
    roundtable = await _first(client, other)
    done = len(scripted.requests)
    refused = await _retry(client, roundtable["id"])
    assert refused.status_code == 422
    assert "'roundtable', whose answer is no synthesis" in refused.text
    assert len(scripted.requests) == done
    scripted.script('{"agents": ["alpha"]}', purpose="route")
    clean = await _first(client, session)
    assert clean["status"] == "completed"
    done = len(scripted.requests)
    nothing = await _retry(client, clean["id"])
    assert nothing.status_code == 409
    assert "nothing to retry" in nothing.text
    assert len(scripted.requests) == done


async def test_a_paused_turn_its_session_and_its_continuation_are_not_retried(
    client: httpx.AsyncClient, scripted: ScriptedProvider, tools: TestTools
) -> None:
    scripted.script(gated_agent, agent="calc")
    scripted.script('{"agents": ["plain", "calc"]}', purpose="route")
    scripted.script('{"agents": ["plain"]}', purpose="route", times=1)
    scripted.script(error=UpstreamError("upstream returned 500"), agent="plain", times=6)
    session = await room_session(client, "orchestrator", ["calculator!"], ["plain"])
    failed = await _first(client, session)
    assert failed["status"] == "failed"
    events = await stream_turn(client, session, {"message": "what is 17*23?"})
    paused = events[0][1]["turn_id"]
    done = len(scripted.requests)
    blocked = await _retry(client, failed["id"])
    assert blocked.status_code == 409
    assert f"turn {paused} is awaiting approval" in blocked.text
    waiting = await _retry(client, paused, {"agents": []})
    assert waiting.status_code == 409
    assert "ended 'awaiting_approval'" in waiting.text
    assert len(scripted.requests) == done
    streamed = await decide_streamed(client, paused, decisions(("c-calc", True, "")))
    continuation = streamed[0][1]["turn_id"]
    refused = await _retry(client, continuation)
    assert refused.status_code == 409
    assert "continues a turn that paused for approval" in refused.text


async def test_an_agent_that_left_the_room_is_not_retried(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script('{"agents": ["alpha", "beta"]}', purpose="route")
    scripted.script(error=UpstreamError("upstream returned 500"), agent="beta", times=6)
    room = await create_room(client, ["alpha", "beta"], mode="orchestrator")
    session = (await create_session(client, room["id"]))["id"]
    first = await _first(client, session)
    beta = next(a for a in (await client.get("/v1/agents")).json()["items"] if a["key"] == "beta")
    gone = await client.delete(f"/v1/rooms/{room['id']}/agents/{beta['id']}")
    assert gone.status_code == 204, gone.text
    done = len(scripted.requests)
    refused = await _retry(client, first["id"], {"agents": ["beta"]})
    assert refused.status_code == 422
    assert "agent 'beta' is no longer in this room" in refused.text
    assert len(scripted.requests) == done
