"""The prompt's history is read through an index, newest first, so a long session's turns
do not slow down with its length (SQLite's plan: an index search, no sort, no scan)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import event, text

from pantheon.db.engine import Database
from pantheon.llm.providers.scripted import ScriptedProvider
from tests.factories import create_room, create_session


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_history_is_read_by_index_without_a_sort(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    room = await create_room(client, ["alpha"])
    session = (await create_session(client, room["id"]))["id"]
    db: Database = app.state.services.db
    seen: list[tuple[str, Any]] = []

    def capture(_conn: Any, _cursor: Any, statement: str, params: Any, *_: Any) -> None:
        if "FROM messages" in statement and "LIMIT" in statement:
            seen.append((statement, params))

    event.listen(db.engine.sync_engine, "before_cursor_execute", capture)
    try:
        for n in range(3):
            turn = await client.post(f"/v1/sessions/{session}/turns", json={"message": f"m{n}"})
            assert turn.status_code == 201
    finally:
        event.remove(db.engine.sync_engine, "before_cursor_execute", capture)
    statement, params = seen[-1]
    async with db.engine.connect() as conn:
        raw = await conn.get_raw_connection()
        plan = await raw.driver_connection.execute_fetchall(  # type: ignore[union-attr]
            f"EXPLAIN QUERY PLAN {statement}", params
        )
        details = " | ".join(str(row[-1]) for row in plan)
        await conn.execute(text("SELECT 1"))
    assert "ix_messages_session_history" in details, details
    assert "TEMP B-TREE" not in details, details  # no sort of the whole session
    prompt = scripted.calls(agent="alpha")[-1].request.messages
    assert [m.content for m in prompt if m.role == "user"][-3:] == ["m0", "m1", "m2"]
