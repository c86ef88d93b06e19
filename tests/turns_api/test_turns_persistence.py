"""What a turn writes: one commit, ordered messages and calls, costs, all-or-nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any
from uuid import UUID

import httpx
from fastapi import FastAPI
from sqlalchemy import delete, event, text
from sqlalchemy.exc import IntegrityError, OperationalError

from pantheon.db.engine import Database
from pantheon.db.models import ChatSession
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.settings import Settings
from tests.factories import create_room, create_session
from tests.sse_client import stream_turn, types
from tests.turns_api.apps import running_client


async def _session(client: httpx.AsyncClient, keys: list[str], **room: Any) -> str:
    created = await create_room(client, keys, **room)
    return str((await create_session(client, created["id"]))["id"])


async def test_exactly_one_commit_per_turn(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script('{"agents": ["alpha", "beta"]}', purpose="route")
    session_id = await _session(client, ["alpha", "beta"], mode="orchestrator")
    db: Database = app.state.services.db
    commits: list[int] = []

    def count(_conn: object) -> None:
        commits.append(1)

    event.listen(db.engine.sync_engine, "commit", count)
    try:
        await client.post(f"/v1/sessions/{session_id}/turns", json={"message": "go"})
        assert len(commits) == 1
        await stream_turn(client, session_id, {"message": "again"})
        assert len(commits) == 2
    finally:
        event.remove(db.engine.sync_engine, "commit", count)


async def test_history_orders_turns_and_reaches_the_next_prompt(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script("alpha one", agent="alpha", times=1)
    scripted.script("beta one", agent="beta", times=1)
    session_id = await _session(client, ["alpha", "beta"])
    await client.post(f"/v1/sessions/{session_id}/turns", json={"message": "first question"})
    await client.post(f"/v1/sessions/{session_id}/turns", json={"message": "second question"})
    messages = (await client.get(f"/v1/sessions/{session_id}/messages")).json()
    assert [(m["role"], m["agent_key"]) for m in messages["items"]] == [
        ("user", None), ("assistant", "alpha"), ("assistant", "beta"),
    ] * 2  # fmt: skip
    assert [m["seq"] for m in messages["items"]] == [0, 1, 2, 0, 1, 2]
    prompt = " ".join(m.content for m in scripted.calls(agent="alpha")[1].request.messages)
    assert prompt.index("first question") < prompt.index("alpha one") < prompt.index("beta one")
    assert "second question" in prompt
    turns = (await client.get(f"/v1/sessions/{session_id}/turns", params={"limit": 1})).json()
    assert turns["total"] == 2
    assert turns["items"][0]["message"] == "first question"


async def test_llm_calls_carry_tokens_latency_and_alias_prices(
    tmp_path: Path, settings: Settings, scripted: ScriptedProvider
) -> None:
    models = tmp_path / "models.toml"
    models.write_text(
        '[models.priced]\nprovider = "scripted"\nbase_url = "http://unused"\n'
        "input_price_per_mtok = 1000000.0\noutput_price_per_mtok = 2000000.0\n"
    )
    priced = settings.model_copy(update={"models_file": models, "default_model": "priced"})
    async with running_client(priced, scripted) as client:
        scripted.script("one two three", agent="alpha")
        session_id = await _session(client, ["alpha"])
        turn = (
            await client.post(f"/v1/sessions/{session_id}/turns", json={"message": "hi"})
        ).json()
    (call,) = turn["llm_calls"]
    assert call["model"] == "priced"
    assert call["output_tokens"] == 3
    assert call["input_tokens"] > 0
    assert call["cost_usd"] == call["input_tokens"] * 1.0 + call["output_tokens"] * 2.0
    assert call["latency_ms"] >= 0
    assert call["ttft_ms"] is not None
    assert call["status"] == "ok"
    assert turn["usage"]["cost_usd"] == call["cost_usd"]
    assert turn["usage"]["output_tokens"] == 3


async def test_failed_write_leaves_nothing_and_ends_with_error_event(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script("slow answer", agent="alpha", delay_s=0.3)
    session_id = await _session(client, ["alpha"])
    db: Database = app.state.services.db

    async def remove_session_while_running() -> None:
        await asyncio.sleep(0.1)
        async with db.engine.begin() as conn:  # a raw write, as an operator might
            await conn.execute(delete(ChatSession).where(ChatSession.id == UUID(session_id)))

    removal = asyncio.create_task(remove_session_while_running())
    events = await stream_turn(client, session_id, {"message": "hi"})
    await removal
    assert types(events)[-1] == "error"
    assert events[-1][1]["code"] == "persistence_failed"
    assert "turn_completed" not in types(events)
    turn_id = events[0][1]["turn_id"]
    assert (await client.get(f"/v1/turns/{turn_id}")).status_code == 404
    async with db.engine.connect() as conn:
        for table in ("turns", "messages", "llm_calls", "turn_event_logs"):
            count = await conn.scalar(text(f"SELECT count(*) FROM {table}"))
            assert count == 0, table


async def test_a_transient_write_failure_is_retried_and_the_turn_kept(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    session_id = await _session(client, ["alpha"])
    db: Database = app.state.services.db
    failures: list[str] = []

    def fail_once(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if statement.lstrip().upper().startswith("INSERT INTO TURNS") and not failures:
            failures.append(statement)
            raise OperationalError(statement, {}, Exception("database is locked"))

    event.listen(db.engine.sync_engine, "before_cursor_execute", fail_once)
    try:
        events = await stream_turn(client, session_id, {"message": "hi"})
    finally:
        event.remove(db.engine.sync_engine, "before_cursor_execute", fail_once)
    assert len(failures) == 1
    assert types(events)[-1] == "turn_completed"
    turn = (await client.get(f"/v1/turns/{events[0][1]['turn_id']}")).json()
    assert turn["status"] == "completed"
    assert [m["content"] for m in turn["messages"]] == ["hi", "alpha: hi"]


async def test_a_constraint_failure_is_not_retried(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    session_id = await _session(client, ["alpha"])
    db: Database = app.state.services.db
    attempts: list[str] = []

    def always_fail(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if statement.lstrip().upper().startswith("INSERT INTO TURNS"):
            attempts.append(statement)
            raise IntegrityError(statement, {}, Exception("constraint failed"))

    event.listen(db.engine.sync_engine, "before_cursor_execute", always_fail)
    try:
        events = await stream_turn(client, session_id, {"message": "hi"})
    finally:
        event.remove(db.engine.sync_engine, "before_cursor_execute", always_fail)
    assert len(attempts) == 1
    assert events[-1][1]["code"] == "persistence_failed"
