"""Decisions racing for one paused turn: exactly one runs the approved call, on one
process and whatever the interleaving (docs/approvals.md, "Errors").

The decision is claimed in the database before the continuation starts, so a request
that read the turn as undecided still loses once another's claim is committed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from pantheon.errors import ServiceUnavailable
from pantheon.live.registry import LiveTurn
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.turns import service as service_module
from pantheon.turns.approvals import prepare_continuation
from tests.engine.toolbox import TestTools, calculator, use_tools
from tests.sse_client import stream_turn
from tests.turns_api.approvals_helpers import agent_session, decide, decisions, gated_agent

RACERS = 8
Body = Callable[[LiveTurn], Coroutine[Any, Any, None]]


@pytest.fixture
def tools(app: FastAPI) -> TestTools:
    runner = TestTools({"calculator": calculator})
    use_tools(app, runner)
    return runner


async def _paused_turn(client: httpx.AsyncClient, scripted: ScriptedProvider) -> str:
    scripted.script(gated_agent, agent="calc")
    session_id = await agent_session(client, ["calculator!"])
    events = await stream_turn(client, session_id, {"message": "what is 17*23?"})
    assert events[-1][1]["status"] == "awaiting_approval"
    turn_id: str = events[0][1]["turn_id"]
    return turn_id


def _worst_interleaving(app: FastAPI, monkeypatch: pytest.MonkeyPatch, racers: int) -> None:
    """Every request reads the paused turn before any goes on (all see it undecided);
    then they start turns one at a time, each after the previous turn has finished: the
    order in which a check made only at read time lets a second continuation run."""
    read_all = asyncio.Event()
    read = 0
    real_prepare = prepare_continuation

    async def prepare(*args: Any, **kwargs: Any) -> Any:
        nonlocal read
        snapshot = await real_prepare(*args, **kwargs)
        read += 1
        if read == racers:
            read_all.set()
        await read_all.wait()
        return snapshot

    backend = app.state.services.live_backend
    real_claim = backend.claim
    one_at_a_time = asyncio.Lock()

    async def claim(live: LiveTurn, body: Body) -> Any:
        async with one_at_a_time:
            view = await real_claim(live, body)
            await view.wait_finished()
            return view

    monkeypatch.setattr(service_module, "prepare_continuation", prepare)
    monkeypatch.setattr(backend, "claim", claim)


async def test_racing_decisions_run_the_approved_call_once(
    app: FastAPI,
    client: httpx.AsyncClient,
    scripted: ScriptedProvider,
    tools: TestTools,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    paused_id = await _paused_turn(client, scripted)
    _worst_interleaving(app, monkeypatch, RACERS)
    body = decisions(("c-calc", True, ""))
    answers = await asyncio.gather(*(decide(client, paused_id, body) for _ in range(RACERS)))
    codes = sorted(a.status_code for a in answers)
    assert codes == [201] + [409] * (RACERS - 1), [a.text for a in answers]
    assert tools.calls == [("calculator", {"expression": "17*23"})]
    [winner] = [a.json() for a in answers if a.status_code == 201]
    assert (winner["continues"], winner["status"]) == (paused_id, "completed")
    for loser in (a.json() for a in answers if a.status_code == 409):
        assert loser["continued_by"] == winner["id"], loser
        assert winner["id"] in loser["detail"]
    listed = (await client.get(f"/v1/sessions/{winner['session_id']}/turns")).json()["items"]
    assert [t["status"] for t in listed] == ["awaiting_approval", "completed"]


async def test_concurrent_decisions_run_the_approved_call_once(
    client: httpx.AsyncClient, scripted: ScriptedProvider, tools: TestTools
) -> None:
    """The plain race, with no interleaving forced: one 201, the rest 409."""
    paused_id = await _paused_turn(client, scripted)
    body = decisions(("c-calc", True, ""))
    answers = await asyncio.gather(*(decide(client, paused_id, body) for _ in range(RACERS)))
    codes = sorted(a.status_code for a in answers)
    assert codes == [201] + [409] * (RACERS - 1), [a.text for a in answers]
    assert tools.calls == [("calculator", {"expression": "17*23"})]


async def test_a_continuation_that_could_not_start_gives_its_decision_back(
    app: FastAPI,
    client: httpx.AsyncClient,
    scripted: ScriptedProvider,
    tools: TestTools,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    paused_id = await _paused_turn(client, scripted)
    backend = app.state.services.live_backend
    real_claim = backend.claim

    async def unavailable(live: LiveTurn, body: Body) -> Any:
        raise ServiceUnavailable("the live-turn store is unavailable")

    monkeypatch.setattr(backend, "claim", unavailable)
    body = decisions(("c-calc", True, ""))
    refused = await decide(client, paused_id, body)
    assert refused.status_code == 503, refused.text
    assert tools.calls == []
    monkeypatch.setattr(backend, "claim", real_claim)
    answer = await decide(client, paused_id, body)
    assert answer.status_code == 201, answer.text
    assert tools.calls == [("calculator", {"expression": "17*23"})]
