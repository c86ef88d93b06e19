"""A turn's database work is a fixed handful of statements, whatever the backend: one read
of what the session tells (its agent or room, its newest turn, the Idempotency-Key's turn,
the allowlist, whether a budget exists), a room's roster, the history, then one INSERT per
table of the record (and once, on an untitled session's first turn, the UPDATE that names
it). Every turn pays each statement in CPU and round trips, so a count
that grows is a regression (docs/benchmarks.md). Counts only: no time is asserted."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import event

from pantheon.db.engine import Database
from tests.factories import create_agent, create_room, create_session
from tests.sse_client import stream_turn

RECORD = [("INSERT", t) for t in ("turns", "messages", "llm_calls", "turn_event_logs")]


def _verb_and_table(statement: str) -> tuple[str, str]:
    """("SELECT", the table of the first column read) or ("INSERT", the table written)."""
    verb = statement.split(None, 1)[0].upper()
    pattern = r"^\s*INSERT INTO\s+(\w+)" if verb == "INSERT" else r"^\s*SELECT\s+(\w+)\."
    found = re.search(pattern, statement)
    return verb, found.group(1) if found else "?"


@asynccontextmanager
async def _statements(app: FastAPI) -> AsyncIterator[list[tuple[str, str]]]:
    db: Database = app.state.services.db
    seen: list[tuple[str, str]] = []

    def capture(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        seen.append(_verb_and_table(statement))

    event.listen(db.engine.sync_engine, "before_cursor_execute", capture)
    try:
        yield seen
    finally:
        event.remove(db.engine.sync_engine, "before_cursor_execute", capture)


async def _third_turn(app: FastAPI, client: httpx.AsyncClient, session_id: str) -> list[Any]:
    """The statements of a session's third streamed turn (the stream ends after its
    commit); the first two leave history behind and warm the server up."""
    for n in range(2):
        await stream_turn(client, session_id, {"message": f"warm-up {n}"})
    async with _statements(app) as seen:
        events = await stream_turn(client, session_id, {"message": "counted"})
    assert events[-1][1]["type"] == "turn_completed", events[-1]
    return seen


async def test_a_one_agent_turn_is_two_reads_and_one_insert_per_table(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    agent = await create_agent(client, "solo")
    opened = await client.post(f"/v1/agents/{agent['id']}/sessions", json={"title": "t"})
    assert opened.status_code == 201, opened.text

    seen = await _third_turn(app, client, opened.json()["id"])

    assert seen == [("SELECT", "sessions"), ("SELECT", "messages"), *RECORD]


async def test_a_room_turn_reads_the_roster_once_more(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    room = await create_room(client, ["alpha", "beta"], mode="roundtable")
    session_id = (await create_session(client, room["id"]))["id"]

    seen = await _third_turn(app, client, session_id)

    reads = [("SELECT", "sessions"), ("SELECT", "room_agents"), ("SELECT", "messages")]
    assert seen == [*reads, *RECORD]


async def test_the_first_turn_of_an_untitled_session_names_it_once(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    """One UPDATE more, on the first turn only (it stores the automatic title)."""
    agent = await create_agent(client, "namer")
    opened = await client.post(f"/v1/agents/{agent['id']}/sessions", json={})
    assert opened.status_code == 201, opened.text
    session_id = opened.json()["id"]
    async with _statements(app) as first:
        await stream_turn(client, session_id, {"message": "first"})
    assert [verb for verb, _ in first].count("UPDATE") == 1
    async with _statements(app) as second:
        await stream_turn(client, session_id, {"message": "second"})
    assert [verb for verb, _ in second].count("UPDATE") == 0
