"""Replay refusals: each a plain 404 / 409 / 422 naming the problem, nothing started."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import update

from pantheon.db.engine import Database
from pantheon.db.models import Turn
from pantheon.db.uow import unit_of_work
from pantheon.llm.providers.scripted import ScriptedProvider
from tests.factories import UNKNOWN_ID
from tests.replay.helpers import streamed
from tests.turns_api.approvals_helpers import agent_session, decide, decisions, gated_agent
from tests.turns_api.test_public_streams import _session


async def _finished(client: httpx.AsyncClient, mode: str = "roundtable") -> dict[str, Any]:
    session_id = await _session(client, mode)
    return (await streamed(client, f"/v1/sessions/{session_id}/turns", {"message": "hi"})).turn


async def _replay(client: httpx.AsyncClient, turn_id: str, body: Any = None) -> httpx.Response:
    return await client.post(f"/v1/turns/{turn_id}/replay", json=body or {})


@pytest.mark.parametrize("turn_id", [UNKNOWN_ID, "not-a-uuid"])
async def test_unknown_turn_is_404(client: httpx.AsyncClient, turn_id: str) -> None:
    response = await _replay(client, turn_id)
    assert response.status_code == 404, response.text
    assert turn_id in response.json()["detail"]


async def test_a_turn_recorded_before_outputs_were_kept_is_409(
    client: httpx.AsyncClient, app: FastAPI, scripted: ScriptedProvider
) -> None:
    turn = await _finished(client)
    db: Database = app.state.services.db
    async with unit_of_work(db, write=True) as session:  # as a turn from before 0015
        await session.execute(
            update(Turn).where(Turn.id == uuid.UUID(turn["id"])).values(snapshot=None)
        )
    calls = len(scripted.requests)
    response = await _replay(client, turn["id"])
    assert response.status_code == 409, response.text
    assert "cannot be replayed exactly" in response.json()["detail"]
    assert "before call outputs were kept" in response.json()["detail"]
    assert len(scripted.requests) == calls


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ({"agents": {"nobody": {"model": "other"}}}, ["calc", "plain"]),
        ({"agents": {"plain": {"model": "no-such-alias"}}}, ["other", "priced", "scripted"]),
        ({"mode": "chaos"}, ["roundtable", "orchestrator", "pipeline"]),
        ({"mode": "standalone"}, ["standalone", "agent"]),
        ({"agents": {"plain": {"modle": "other"}}}, ["modle"]),
    ],
)
async def test_bad_changes_are_422_naming_what_is_valid(
    client: httpx.AsyncClient, scripted: ScriptedProvider, body: dict[str, Any], named: list[str]
) -> None:
    turn = await _finished(client)
    calls = len(scripted.requests)
    response = await _replay(client, turn["id"], body)
    assert response.status_code == 422, response.text
    for name in named:
        assert name in response.text
    assert len(scripted.requests) == calls


async def test_manual_mode_needs_a_mention_in_the_recorded_message(
    client: httpx.AsyncClient,
) -> None:
    turn = await _finished(client)  # "hi" mentions nobody
    response = await _replay(client, turn["id"], {"mode": "manual"})
    assert response.status_code == 422, response.text
    assert "@calc" in response.text or "calc" in response.json().get("room_keys", [])


async def test_a_paused_turn_and_its_continuation_are_409(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script(gated_agent, agent="calc")
    session_id = await agent_session(client, ["calculator!"])
    paused = await streamed(client, f"/v1/sessions/{session_id}/turns", {"message": "17*23?"})
    assert paused.turn["status"] == "awaiting_approval"
    response = await _replay(client, paused.turn["id"])
    assert response.status_code == 409, response.text
    assert "approval" in response.json()["detail"]
    continuation = await decide(client, paused.turn["id"], decisions(("c-calc", True, "")))
    assert continuation.status_code == 201, continuation.text
    response = await _replay(client, continuation.json()["id"])
    assert response.status_code == 409, response.text
    assert "cannot be replayed exactly" in response.json()["detail"]
