"""Pipeline mode through the HTTP API: stages in order, each fed the previous output, a
failed stage keeping the last good answer, and ``rerun_from`` reusing earlier stages."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import httpx

from pantheon.llm.errors import Unavailable
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.turns.idempotency import request_hash
from pantheon.turns.schemas import TurnCreate
from tests.factories import create_agent, create_room, create_session
from tests.sse_client import Event, stream_turn, types

KEYS = ["alpha", "beta", "gamma"]


async def _pipeline_session(client: httpx.AsyncClient, keys: list[str] = KEYS) -> str:
    room = await create_room(client, keys, mode="pipeline")
    return str((await create_session(client, room["id"]))["id"])


def _prompt(scripted: ScriptedProvider, agent: str, index: int = -1) -> str:
    return scripted.calls(agent=agent)[index].request.messages[-1].content


def _stage_events(events: list[Event]) -> list[tuple[str, int, str, bool]]:
    return [
        (data["type"], data["stage"], data["agent_key"], data["reused"])
        for _, data in events
        if data["type"] in ("stage_started", "stage_completed")
    ]


async def _turn(client: httpx.AsyncClient, session_id: str, **body: Any) -> httpx.Response:
    return await client.post(f"/v1/sessions/{session_id}/turns", json={"message": "go", **body})


async def test_three_stages_run_in_order_each_fed_the_previous_output(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script("notes", agent="alpha")
    scripted.script("draft", agent="beta")
    scripted.script("final text", agent="gamma")
    session_id = await _pipeline_session(client)
    events = await stream_turn(client, session_id, {"message": "write it"})
    assert types(events) == [
        "turn_started",
        "stage_started", "agent_started", "delta", "agent_completed", "stage_completed",
        "stage_started", "agent_started", "delta", "agent_completed", "stage_completed",
        "stage_started", "agent_started", "delta", "delta", "agent_completed",
        "stage_completed",
        "turn_completed",
    ]  # fmt: skip
    assert _stage_events(events) == [
        ("stage_started", 1, "alpha", False), ("stage_completed", 1, "alpha", False),
        ("stage_started", 2, "beta", False), ("stage_completed", 2, "beta", False),
        ("stage_started", 3, "gamma", False), ("stage_completed", 3, "gamma", False),
    ]  # fmt: skip
    assert [d["text"] for _, d in events if d["type"] == "stage_completed"] == [
        "notes", "draft", "final text",
    ]  # fmt: skip
    assert "notes" not in _prompt(scripted, "alpha")
    assert "notes" in _prompt(scripted, "beta")
    assert "draft" in _prompt(scripted, "gamma")
    assert "notes" not in _prompt(scripted, "gamma")  # only the previous stage
    done = events[-1][1]
    assert done["status"] == "completed"
    turn = (await client.get(f"/v1/turns/{done['turn_id']}")).json()
    assert turn["mode"] == "pipeline"
    assert turn["output"] == (
        "[Stage 1] Alpha: notes\n\n[Stage 2] Beta: draft\n\n[Stage 3] Gamma: final text"
    )
    assert [(m["agent_key"], m["content"], m["reused"]) for m in turn["messages"][1:]] == [
        ("alpha", "notes", False), ("beta", "draft", False), ("gamma", "final text", False),
    ]  # fmt: skip
    calls = turn["llm_calls"]
    assert [(c["purpose"], c["agent_key"]) for c in calls] == [
        ("stage", "alpha"), ("stage", "beta"), ("stage", "gamma"),
    ]  # fmt: skip


async def test_rerun_from_stage_two_reuses_stage_one_without_billing_it(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    session_id = await _pipeline_session(client)
    scripted.script("first notes", agent="alpha")
    scripted.script("first draft", agent="beta")
    first = (await _turn(client, session_id)).json()
    assert first["status"] == "completed"
    scripted.script("second draft", agent="beta")
    events = await stream_turn(
        client, session_id, {"message": "shorter please", "rerun_from": "beta"}
    )
    assert _stage_events(events)[:3] == [
        ("stage_started", 1, "alpha", True),
        ("stage_completed", 1, "alpha", True),
        ("stage_started", 2, "beta", False),
    ]
    reused = [d for _, d in events if d["type"] == "stage_completed" and d["reused"]]
    assert reused[0]["text"] == "first notes"
    # Nothing of alpha ran: no agent events, no provider call, no llm_calls row.
    assert [d["agent_key"] for _, d in events if d["type"] == "agent_started"] == ["beta", "gamma"]
    assert len(scripted.calls(agent="alpha")) == 1
    beta_prompt = _prompt(scripted, "beta")
    assert "shorter please" in beta_prompt
    assert "first notes" in beta_prompt
    turn = (await client.get(f"/v1/turns/{events[-1][1]['turn_id']}")).json()
    assert turn["status"] == "completed"
    assert [c["agent_key"] for c in turn["llm_calls"]] == ["beta", "gamma"]
    assert turn["usage"]["input_tokens"] == sum(c["input_tokens"] for c in turn["llm_calls"])
    assert [(m["agent_key"], m["reused"]) for m in turn["messages"][1:]] == [
        ("alpha", True), ("beta", False), ("gamma", False),
    ]  # fmt: skip
    assert turn["messages"][1]["content"] == "first notes"
    assert turn["output"].startswith("[Stage 1] Alpha (reused): first notes\n\n")
    assert "[Stage 2] Beta: second draft" in turn["output"]
    # A rerun of a rerun reuses what the last pipeline turn recorded, reused stages too.
    again = (await _turn(client, session_id, rerun_from="gamma")).json()
    assert [m["content"] for m in again["messages"][1:3]] == ["first notes", "second draft"]
    assert [c["agent_key"] for c in again["llm_calls"]] == ["gamma"]


async def test_a_failed_stage_stops_the_pipeline_and_keeps_the_last_good_output(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script("notes", agent="alpha")
    scripted.script(error=Unavailable("down"), agent="beta")
    session_id = await _pipeline_session(client)
    events = await stream_turn(client, session_id, {"message": "go"})
    assert _stage_events(events)[-2:] == [
        ("stage_started", 2, "beta", False),
        ("stage_completed", 2, "beta", False),
    ]
    failed = [d for _, d in events if d["type"] == "stage_completed"][-1]
    assert failed["ok"] is False
    assert failed["text"] == ""
    assert "agent_failed" in types(events)
    assert scripted.calls(agent="gamma") == []
    turn = (await client.get(f"/v1/turns/{events[-1][1]['turn_id']}")).json()
    assert turn["status"] == "partial"
    assert turn["output"] == (
        "[Stage 1] Alpha: notes\n\n[Stage 2] Beta: [failed: unavailable]\n\n"
        "Answer (stage 1, Alpha):\nnotes"
    )
    # The failed stage is a stage of that turn: rerunning from it reuses stage 1.
    scripted.script("draft", agent="beta")
    rerun = (await _turn(client, session_id, rerun_from="beta")).json()
    assert rerun["status"] == "completed"
    assert [m["reused"] for m in rerun["messages"][1:]] == [True, False, False]


async def test_rerun_from_errors_name_the_problem(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    session_id = await _pipeline_session(client)
    response = await _turn(client, session_id, rerun_from="beta")
    assert response.status_code == 422
    assert "no earlier pipeline turn" in response.json()["detail"]

    scripted.script(error=Unavailable("down"), agent="beta", times=6)
    assert (await _turn(client, session_id)).json()["status"] == "partial"
    response = await _turn(client, session_id, rerun_from="nobody")
    assert response.status_code == 422
    assert "'nobody' is not a stage" in response.json()["detail"]
    assert "alpha, beta" in response.json()["detail"]
    response = await _turn(client, session_id, rerun_from="gamma")  # never ran: beta failed
    assert response.status_code == 422
    assert "'gamma' is not a stage" in response.json()["detail"]

    roundtable = await create_room(client, ["solo"], mode="roundtable")
    other = str((await create_session(client, roundtable["id"]))["id"])
    response = await _turn(client, other, rerun_from="solo")
    assert response.status_code == 422
    assert "applies to pipeline turns" in response.json()["detail"]
    response = await _turn(client, session_id, rerun_from="beta", mode="roundtable")
    assert response.status_code == 422


async def test_rerun_from_refuses_a_changed_roster(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    room = await create_room(client, KEYS, mode="pipeline")
    session_id = str((await create_session(client, room["id"]))["id"])
    assert (await _turn(client, session_id)).json()["status"] == "completed"
    newcomer = await create_agent(client, "aardvark")
    added = await client.post(
        f"/v1/rooms/{room['id']}/agents", json={"agent_id": newcomer["id"], "position": 0}
    )
    assert added.status_code == 201, added.text
    response = await _turn(client, session_id, rerun_from="beta")
    assert response.status_code == 422
    assert "the room's agents changed" in response.json()["detail"]


async def test_an_idempotency_key_names_the_rerun_too(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    session_id = await _pipeline_session(client)
    headers = {"Idempotency-Key": "k-1"}
    url = f"/v1/sessions/{session_id}/turns"
    first = await client.post(url, json={"message": "go"}, headers=headers)
    assert first.status_code == 201
    again = await client.post(url, json={"message": "go"}, headers=headers)
    assert again.json()["id"] == first.json()["id"]
    other = await client.post(url, json={"message": "go", "rerun_from": "beta"}, headers=headers)
    assert other.status_code == 422
    assert "different request body" in other.json()["detail"]


def test_bodies_without_rerun_from_hash_as_before() -> None:
    # Digests stored before rerun_from existed must still match the same body.
    before = json.dumps({"message": "hi", "mode": None}, sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(before.encode()).hexdigest()
    assert request_hash(TurnCreate(message="hi")) == digest
    assert request_hash(TurnCreate(message="hi", rerun_from="beta")) != digest
