"""Every turn is recorded from the one fold (engine/fold.py, ADR 0038): over a finished
turn's stored events, public and internal, it gives what is stored: messages, LLM calls,
tool calls, status, output (the review's closing block too), rounds, usage and
``context_dropped``, in every mode (tools included)."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from pydantic import TypeAdapter
from sqlalchemy import select

from pantheon.db.engine import Database
from pantheon.db.models import TurnEventLog
from pantheon.db.uow import unit_of_work
from pantheon.engine.events import TurnEvent
from pantheon.engine.fold import rebuild_record
from pantheon.engine.record import TurnRecord
from pantheon.engine.values import Mode
from pantheon.live import event_log
from pantheon.llm.providers.scripted import ScriptedProvider
from tests.engine.toolbox import TestTools, calculating_agent, use_tools
from tests.modes import MODES, calc_session, question

_EVENT: TypeAdapter[TurnEvent] = TypeAdapter(TurnEvent)
_MODE: TypeAdapter[Mode] = TypeAdapter(Mode)


async def _stored(db: Database, turn_id: str) -> tuple[list[str], list[str]]:
    query = select(TurnEventLog.data).where(TurnEventLog.turn_id == uuid.UUID(turn_id))
    async with unit_of_work(db, write=False) as session:
        data = await session.scalar(query)
    assert data is not None
    return event_log.decode_all(data)


def _messages(record: TurnRecord) -> list[tuple[Any, ...]]:
    return [
        (m.role, m.agent_key, m.agent_name, m.round, m.content, m.status, m.error_code)
        for m in record.messages
    ]


_CALL_FIELDS = (
    "purpose", "model", "agent_key", "round", "input_tokens", "output_tokens",
    "usage_estimated", "latency_ms", "ttft_ms", "status", "error_code",
)  # fmt: skip
_TOOL_FIELDS = (
    "agent_key", "round", "call_id", "name", "arguments", "result", "ok", "duration_ms",
    "approval",
)  # fmt: skip


@pytest.mark.parametrize("mode", MODES)
async def test_a_finished_turn_is_stored_as_the_fold_of_its_stored_events(
    client: httpx.AsyncClient, scripted: ScriptedProvider, app: FastAPI, mode: str
) -> None:
    use_tools(app, TestTools())
    scripted.script(calculating_agent, agent="calc")
    scripted.script('{"agents": ["calc", "plain"]}', purpose="route")
    session_id = await calc_session(client, mode)
    response = await client.post(
        f"/v1/sessions/{session_id}/turns", json={"message": question(mode)}
    )
    assert response.status_code == 201, response.text
    turn = response.json()
    public, internal = await _stored(app.state.services.db, turn["id"])
    assert {_EVENT.validate_json(t).type for t in internal} == {"llm_call", "tool_call_record"}
    events = [_EVENT.validate_json(text) for text in [*public[:-1], *internal]]
    folded = rebuild_record(_MODE.validate_python(mode), events)

    stored_messages = [
        (m["role"], m["agent_key"], m["agent_name"], m["round"], m["content"], m["status"],
         m["error_code"])
        for m in turn["messages"][1:]
    ]  # fmt: skip
    assert _messages(folded) == stored_messages
    calls = [tuple(getattr(c, f) for f in _CALL_FIELDS) for c in folded.llm_calls]
    assert calls == [tuple(c[f] for f in _CALL_FIELDS) for c in turn["llm_calls"]]
    assert [c.cost_usd for c in folded.llm_calls] == pytest.approx(
        [c["cost_usd"] for c in turn["llm_calls"]]
    )
    tools = [tuple(getattr(c, f) for f in _TOOL_FIELDS) for c in folded.tool_calls]
    assert tools == [tuple(c[f] for f in _TOOL_FIELDS) for c in turn["tool_calls"]]
    assert tools, "each mode's turn called the calculator"
    assert (folded.status, folded.rounds) == (turn["status"], turn["rounds"])
    usage = folded.usage()
    assert (usage.input_tokens, usage.output_tokens) == (
        turn["usage"]["input_tokens"], turn["usage"]["output_tokens"],
    )  # fmt: skip
    assert (folded.output, folded.context_dropped) == (turn["output"], turn["context_dropped"])
