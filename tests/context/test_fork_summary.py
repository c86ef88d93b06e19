"""A fork of a session that folded its history: the fork takes the summary when it covers
nothing after the fork turn, and its first turn reads that summary and the newer history
of the lineage; forked earlier, it has no summary and reads the plain lineage."""

from __future__ import annotations

from typing import Any

import httpx

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.context.conftest import Tiny
from tests.sse_client import stream_turn

LONG_ANSWER = "answer " + "word " * 40


async def _turn(tiny: Tiny, session: str, message: str) -> tuple[str, bool]:
    """Run a turn; its id and whether it folded a summary."""
    events = [data for _, data in await stream_turn(tiny.http, session, {"message": message})]
    assert events[-1]["status"] == "completed", events[-1]
    return str(events[0]["turn_id"]), any(e["type"] == "summary" for e in events)


async def _fork(http: httpx.AsyncClient, session: str, turn: str) -> dict[str, Any]:
    response = await http.post(f"/v1/sessions/{session}/fork", json={"turn_id": turn})
    assert response.status_code == 201, response.text
    fork: dict[str, Any] = response.json()
    return fork


async def test_a_fork_keeps_a_summary_that_ends_before_its_fork_turn(
    tiny: Tiny, scripted: ScriptedProvider
) -> None:
    scripted.script("Facts so far: FORKED-SUMMARY", purpose="summary")
    scripted.script(LONG_ANSWER, agent="alpha")
    session = await tiny.session(["alpha"])
    turns: list[str] = []
    folded_at = None
    for n in range(12):
        turn_id, folded = await _turn(tiny, session, f"question {n}: " + "detail " * 12)
        turns.append(turn_id)
        if folded and folded_at is None:
            folded_at = n
    assert folded_at is not None
    assert folded_at >= 1
    parent = (await tiny.http.get(f"/v1/sessions/{session}")).json()
    assert parent["summary"] is not None

    late = await _fork(tiny.http, session, turns[-1])
    assert late["summary"] == parent["summary"]
    await _turn(tiny, late["id"], "after the fork")
    call = scripted.calls(agent="alpha")[-1]
    assert "FORKED-SUMMARY" in call.request.messages[0].content
    prompt = "\n".join(m.content for m in call.request.messages)
    assert "question 11:" in prompt
    assert "question 0:" not in prompt

    early = await _fork(tiny.http, session, turns[0])
    assert early["summary"] is None
    await _turn(tiny, early["id"], "early fork")
    call = scripted.calls(agent="alpha")[-1]
    prompt = "\n".join(m.content for m in call.request.messages)
    assert "FORKED-SUMMARY" not in prompt
    assert "question 0:" in prompt
    assert "question 1:" not in prompt
