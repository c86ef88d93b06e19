"""A continuation that never commits is recorded ``interrupted`` from the crash journal
at the next start as what it was: the continuation of the paused turn, with the person's
decisions, so the paused turn stays decided and the approved call never runs twice."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from pantheon.live import runner as runner_module
from pantheon.live.recorder import FinishedTurn, record_turn
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.settings import Settings
from tests.app_factory import running_app
from tests.engine.toolbox import TestTools, calculator, use_tools
from tests.sse_client import stream_turn
from tests.turns_api.approvals_helpers import (
    agent_session,
    decide,
    decide_streamed,
    decisions,
    gated_agent,
    of,
)


@contextlib.asynccontextmanager
async def _serving(
    settings: Settings, scripted: ScriptedProvider, tools: TestTools
) -> AsyncIterator[httpx.AsyncClient]:
    """The app on ``settings`` (its start-up reads the journal) with ``tools``."""
    async with running_app(settings, scripted) as started:
        use_tools(started.app, tools)
        yield started.http


def _continuations_cannot_commit(monkeypatch: pytest.MonkeyPatch) -> None:
    """A continuation's one commit fails (the process died before it, as far as the
    database knows): its journal file stays for the next start."""
    real = record_turn

    async def record(db: Any, turn: FinishedTurn, events: Any) -> None:
        if turn.snapshot.resume is not None:
            raise RuntimeError("the database went away")
        await real(db, turn, events)

    monkeypatch.setattr(runner_module, "record_turn", record)


async def test_an_interrupted_continuation_keeps_the_decision(
    settings: Settings, scripted: ScriptedProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    tools = TestTools({"calculator": calculator})
    scripted.script(gated_agent, agent="calc")
    async with _serving(settings, scripted, tools) as client:
        session_id = await agent_session(client, ["calculator!"])
        paused = await stream_turn(client, session_id, {"message": "what is 17*23?"})
        paused_id = paused[0][1]["turn_id"]
        with monkeypatch.context() as patch:
            _continuations_cannot_commit(patch)
            streamed = await decide_streamed(client, paused_id, decisions(("c-calc", True, "")))
        assert [e["code"] for e in of(streamed, "error")] == ["persistence_failed"]
        continuation_id = streamed[0][1]["turn_id"]
    assert tools.calls == [("calculator", {"expression": "17*23"})]
    assert (settings.data_dir / "journal" / f"{continuation_id}.jsonl").exists()

    async with _serving(settings, scripted, tools) as client:
        turn = (await client.get(f"/v1/turns/{continuation_id}")).json()
        assert (turn["status"], turn["continues"]) == ("interrupted", paused_id)
        assert turn["message"] == "Approved calculator (c-calc)"
        assert turn["messages"][0]["content"] == "Approved calculator (c-calc)"
        rows = [(r["call_id"], r["approval"], r["ok"], r["result"]) for r in turn["tool_calls"]]
        assert rows == [("c-calc", "approved", True, "391")]
        again = await decide(client, paused_id, decisions(("c-calc", True, "")))
        assert again.status_code == 409, again.text
        assert again.json()["continued_by"] == continuation_id
        assert tools.calls == [("calculator", {"expression": "17*23"})]
        # The decision is settled: the session takes messages again.
        later = await client.post(f"/v1/sessions/{session_id}/turns", json={"message": "more"})
        assert later.status_code == 201, later.text


async def test_a_decision_whose_continuation_was_lost_stays_decided(
    settings: Settings, scripted: ScriptedProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a journal nothing records the continuation; the claimed decision still
    stands (the call may have run), and the session is not left waiting for it."""
    settings = settings.model_copy(
        update={"turns": settings.turns.model_copy(update={"journal": False})}
    )
    tools = TestTools({"calculator": calculator})
    scripted.script(gated_agent, agent="calc")
    async with _serving(settings, scripted, tools) as client:
        session_id = await agent_session(client, ["calculator!"])
        paused = await stream_turn(client, session_id, {"message": "what is 17*23?"})
        paused_id = paused[0][1]["turn_id"]
        with monkeypatch.context() as patch:
            _continuations_cannot_commit(patch)
            lost = await decide(client, paused_id, decisions(("c-calc", True, "")))
        assert lost.status_code == 503, lost.text
    async with _serving(settings, scripted, tools) as client:
        listed = (await client.get(f"/v1/sessions/{session_id}/turns")).json()["items"]
        assert [t["status"] for t in listed] == ["awaiting_approval"]
        again = await decide(client, paused_id, decisions(("c-calc", True, "")))
        assert again.status_code == 409, again.text
        assert "already decided" in again.json()["detail"]
        assert tools.calls == [("calculator", {"expression": "17*23"})]
        later = await client.post(f"/v1/sessions/{session_id}/turns", json={"message": "more"})
        assert later.status_code == 201, later.text
