"""Recording a turn whose process died (live/interrupted.py): once, in one commit, with
the user's message and each speaker's text as its events held it, read back through the
public API like any turn."""

from __future__ import annotations

import asyncio
import json
import uuid
from datetime import timedelta
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import event

from pantheon.db.base import utcnow
from pantheon.db.engine import Database
from pantheon.engine.events import (
    AgentCompletedEvent,
    AgentStartedEvent,
    DeltaEvent,
    ErrorEvent,
    TokenUsage,
    ToolCallEvent,
    ToolResultEvent,
    TurnEvent,
    TurnStartedEvent,
    event_to_json,
)
from pantheon.live.interrupted import record_interrupted
from pantheon.live.meta import TurnMeta
from pantheon.llm.providers.scripted import ScriptedProvider
from tests.factories import create_room, create_session
from tests.sse_client import read_events, types


async def _session(client: httpx.AsyncClient) -> str:
    room = await create_room(client, ["alpha", "beta"], mode="roundtable")
    return str((await create_session(client, room["id"]))["id"])


def _meta(session_id: str, key: str | None = None) -> TurnMeta:
    return TurnMeta(
        turn_id=str(uuid.uuid4()), session_id=session_id, owner_id=str(uuid.uuid4()),
        mode="roundtable", message="what now?", created_at=utcnow() - timedelta(seconds=5),
        idempotency_key=key, request_hash="h" * 64 if key else None,
    )  # fmt: skip


def _texts(turn_id: str, session_id: str) -> list[str]:
    """alpha finished; beta streamed two deltas and was in a tool call when it stopped."""
    t = turn_id
    events: list[TurnEvent] = [
        TurnStartedEvent(turn_id=t, session_id=session_id, mode="roundtable",
                         agents=["alpha", "beta"]),
        AgentStartedEvent(turn_id=t, agent_key="alpha", agent_name="Alpha"),
        DeltaEvent(turn_id=t, agent_key="alpha", text="Hel"),
        DeltaEvent(turn_id=t, agent_key="alpha", text="lo"),
        AgentCompletedEvent(turn_id=t, agent_key="alpha", text="Hello", usage=TokenUsage()),
        AgentStartedEvent(turn_id=t, agent_key="beta", agent_name="Beta"),
        DeltaEvent(turn_id=t, agent_key="beta", text="Let me "),
        ToolCallEvent(turn_id=t, agent_key="beta", round=1, call_id="c1", name="calculator",
                      arguments={"expression": "1+1"}),
        ToolResultEvent(turn_id=t, agent_key="beta", round=1, call_id="c1", name="calculator",
                        ok=True, content="2", duration_ms=3),
        DeltaEvent(turn_id=t, agent_key="beta", text="check"),
        ToolCallEvent(turn_id=t, agent_key="beta", round=2, call_id="c2", name="calculator",
                      arguments={}, arguments_raw="not json"),
    ]  # fmt: skip
    return [event_to_json(e) for e in events]


async def _turn(client: httpx.AsyncClient, turn_id: str) -> dict[str, Any]:
    response = await client.get(f"/v1/turns/{turn_id}")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def test_an_interrupted_turn_keeps_the_message_the_text_and_the_events(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    session_id = await _session(client)
    meta = _meta(session_id)
    texts = _texts(meta.turn_id, session_id)
    db: Database = app.state.services.db
    commits: list[int] = []
    listen = (db.engine.sync_engine, "commit", lambda _conn: commits.append(1))
    event.listen(*listen)
    try:
        assert await record_interrupted(db, meta, texts) is True
    finally:
        event.remove(*listen)
    assert len(commits) == 1

    turn = await _turn(client, meta.turn_id)
    assert (turn["status"], turn["error_code"], turn["message"]) == (
        "interrupted", "interrupted", "what now?"
    )  # fmt: skip
    assert turn["output"] == "Alpha: Hello\n\nBeta: Let me check [interrupted]"
    messages = [(m["role"], m["agent_key"], m["content"], m["status"], m["error_code"])
                for m in turn["messages"]]  # fmt: skip
    assert messages == [
        ("user", None, "what now?", "ok", None),
        ("assistant", "alpha", "Hello", "ok", None),
        ("assistant", "beta", "Let me check", "cancelled", "interrupted"),
    ]
    beta_id = turn["messages"][2]["id"]
    tools = [(c["call_id"], c["arguments"], c["result"], c["ok"], c["message_id"])
             for c in turn["tool_calls"]]  # fmt: skip
    assert tools == [
        ("c1", '{"expression": "1+1"}', "2", True, beta_id),
        ("c2", "not json", "interrupted", False, beta_id),
    ]

    replay = await read_events(client, meta.turn_id)
    assert [seq for seq, _ in replay] == list(range(1, len(texts) + 2))
    assert types(replay)[-1] == "error"
    assert replay[-1][1]["code"] == "interrupted"
    assert [data for _, data in replay[:-1]] == [json.loads(t) for t in texts]


async def test_recording_twice_or_racing_writes_the_turn_once(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    session_id = await _session(client)
    meta = _meta(session_id)
    texts = _texts(meta.turn_id, session_id)
    db: Database = app.state.services.db
    results = await asyncio.gather(*(record_interrupted(db, meta, texts) for _ in range(3)))
    assert sorted(results) == [False, False, True]
    assert await record_interrupted(db, meta, texts[:2]) is False
    turns = (await client.get(f"/v1/sessions/{session_id}/turns")).json()["items"]
    assert [t["id"] for t in turns] == [meta.turn_id]
    assert len((await _turn(client, meta.turn_id))["messages"]) == 3


async def test_a_committed_turn_is_left_alone(app: FastAPI, client: httpx.AsyncClient) -> None:
    session_id = await _session(client)
    done = (await client.post(f"/v1/sessions/{session_id}/turns", json={"message": "hi"})).json()
    meta = _meta(session_id).model_copy(update={"turn_id": done["id"]})
    assert await record_interrupted(app.state.services.db, meta, []) is False
    assert (await _turn(client, done["id"]))["status"] == "completed"


async def test_a_failed_commit_s_last_event_is_replaced_and_no_events_is_fine(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    session_id = await _session(client)
    meta = _meta(session_id)
    failed = ErrorEvent(turn_id=meta.turn_id, code="persistence_failed", message="x")
    texts = [*_texts(meta.turn_id, session_id)[:5], event_to_json(failed)]
    assert await record_interrupted(app.state.services.db, meta, texts) is True
    replay = await read_events(client, meta.turn_id)
    assert types(replay) == [*types([(0, json.loads(t)) for t in texts[:5]]), "error"]
    assert replay[-1][1]["code"] == "interrupted"

    bare = _meta(session_id)
    assert await record_interrupted(app.state.services.db, bare, []) is True
    turn = await _turn(client, bare.turn_id)
    assert [(m["role"], m["content"]) for m in turn["messages"]] == [("user", "what now?")]
    assert types(await read_events(client, bare.turn_id)) == ["error"]


async def test_a_retry_with_the_interrupted_turn_s_key_runs_the_turn_again(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    session_id = await _session(client)
    meta = _meta(session_id, key="k-1")
    assert await record_interrupted(app.state.services.db, meta, _texts(meta.turn_id, session_id))
    url = f"/v1/sessions/{session_id}/turns"
    headers = {"Idempotency-Key": "k-1"}
    retry = await client.post(url, json={"message": "what now?"}, headers=headers)
    assert retry.status_code == 201, retry.text
    assert retry.json()["id"] != meta.turn_id
    assert retry.json()["status"] == "completed"
    again = await client.post(url, json={"message": "what now?"}, headers=headers)
    assert again.json()["id"] == retry.json()["id"]  # the key now names the new turn
    statuses = [t["status"] for t in (await client.get(url)).json()["items"]]
    assert statuses == ["interrupted", "completed"]
