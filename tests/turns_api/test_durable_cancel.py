"""Stop stops: cancel during a specialist and during the synthesis, through HTTP.

The cancelled call's upstream stream is closed, not drained (the scripted provider marks
it ``cancelled``), its row in ``llm_calls`` says ``cancelled``, and what was produced so
far is kept. A real server (``live``) lets the test cancel while the stream is open.
"""

from __future__ import annotations

import pytest

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.factories import UNKNOWN_ID
from tests.sse import Event, open_stream, types
from tests.turns_api.conftest import LiveServer

SLOW = " ".join(f"w{i}" for i in range(40))  # 40 chunks, 2 s at 0.05 s a chunk


def _text_of(events: list[Event], agent_key: str) -> str:
    return "".join(
        data["text"]
        for _, data in events
        if data["type"] == "delta" and data["agent_key"] == agent_key
    )


def _calls(detail: dict[str, object], purpose: str) -> list[dict[str, object]]:
    calls = detail["llm_calls"]
    assert isinstance(calls, list)
    return [call for call in calls if call["purpose"] == purpose]


async def _orchestrator_session(live: LiveServer, scripted: ScriptedProvider) -> str:
    scripted.script('{"agents": ["alpha", "beta"]}', purpose="route")
    scripted.script('{"continue": false}', purpose="evaluate")
    scripted.script("alpha done", agent="alpha", purpose="specialist")
    return await live.session(["alpha", "beta"], mode="orchestrator")


async def test_cancel_during_a_specialist_keeps_the_partial_output(
    live: LiveServer, scripted: ScriptedProvider
) -> None:
    session = await _orchestrator_session(live, scripted)
    scripted.script(SLOW, agent="beta", purpose="specialist", chunk_delay_s=0.05)
    url = f"/v1/sessions/{session}/turns"
    async with open_stream(live.http, url, method="POST", json={"message": "go"}) as stream:
        await stream.until("agent_completed", "alpha")
        if not _text_of(stream.seen, "beta"):
            await stream.until("delta", "beta")
        turn_id = stream.seen[0][1]["turn_id"]
        cancelled = await live.http.post(f"/v1/turns/{turn_id}/cancel")
        assert cancelled.status_code == 200, cancelled.text
        assert cancelled.json()["status"] == "cancelled"
        await stream.rest()
    events = stream.seen
    assert types(events)[-1] == "turn_completed"
    assert events[-1][1]["status"] == "cancelled"
    assert "synthesis_started" not in types(events)
    partial = _text_of(events, "beta")
    assert partial
    assert partial != SLOW

    detail = (await live.http.get(f"/v1/turns/{turn_id}")).json()
    assert detail["status"] == "cancelled"
    # With concurrent specialists a piece of Beta's text may have been generated but still
    # queued for the stream when the cancel landed: it is kept, so the record may hold one
    # piece more than the stream showed, never less.
    kept = detail["messages"][2]["content"]
    assert kept.startswith(partial)
    assert kept != SLOW
    assert kept.count(" ") - partial.count(" ") <= 1
    assert detail["output"] == f"[Round 1]\nAlpha: alpha done\n\nBeta: {kept} [cancelled]"
    assert [m["content"] for m in detail["messages"]] == ["go", "alpha done", kept]
    specialist = {call["agent_key"]: call["status"] for call in _calls(detail, "specialist")}
    assert specialist == {"alpha": "ok", "beta": "cancelled"}
    assert _calls(detail, "synthesis") == []
    (beta_call,) = scripted.calls(purpose="specialist", agent="beta")
    assert beta_call.cancelled
    assert beta_call.finished_at is not None
    assert scripted.calls(purpose="synthesis") == []


async def test_cancel_during_the_synthesis_keeps_the_partial_synthesis(
    live: LiveServer, scripted: ScriptedProvider
) -> None:
    session = await _orchestrator_session(live, scripted)
    scripted.script("beta done", agent="beta", purpose="specialist")
    scripted.script(SLOW, purpose="synthesis", chunk_delay_s=0.05)
    url = f"/v1/sessions/{session}/turns"
    async with open_stream(live.http, url, method="POST", json={"message": "go"}) as stream:
        await stream.until("delta", "manager")
        turn_id = stream.seen[0][1]["turn_id"]
        cancelled = await live.http.post(f"/v1/turns/{turn_id}/cancel")
        assert cancelled.json()["status"] == "cancelled"
        await stream.rest()
    events = stream.seen
    assert events[-1][1]["type"] == "turn_completed"
    assert events[-1][1]["status"] == "cancelled"
    assert "synthesis_completed" not in types(events)
    partial = _text_of(events, "manager")

    detail = (await live.http.get(f"/v1/turns/{turn_id}")).json()
    assert detail["status"] == "cancelled"
    assert detail["output"] == (
        "[Round 1]\nAlpha: alpha done\n\nBeta: beta done\n\n"
        f"Manager synthesis:\n{partial} [cancelled]"
    )
    assert detail["messages"][-1]["role"] == "manager"
    assert detail["messages"][-1]["content"] == partial
    (synthesis,) = _calls(detail, "synthesis")
    assert synthesis["status"] == "cancelled"
    assert synthesis["output_tokens"] == len(partial.split())  # the cancelled call's usage
    assert detail["usage"]["output_tokens"] >= synthesis["output_tokens"]
    (call,) = scripted.calls(purpose="synthesis")
    assert call.cancelled
    # The replay ends the same way the live stream did.
    async with open_stream(live.http, f"/v1/turns/{turn_id}/events") as replay:
        assert await replay.rest() == events


async def test_cancel_a_finished_turn_is_409(live: LiveServer, scripted: ScriptedProvider) -> None:
    session = await live.session(["alpha"], mode="roundtable")
    turn = await live.http.post(f"/v1/sessions/{session}/turns", json={"message": "hi"})
    assert turn.status_code == 201, turn.text
    response = await live.http.post(f"/v1/turns/{turn.json()['id']}/cancel")
    assert response.status_code == 409
    assert "completed" in response.json()["detail"]
    assert (await live.http.get(f"/v1/turns/{turn.json()['id']}")).json()["status"] == "completed"


@pytest.mark.parametrize("turn_id", [UNKNOWN_ID, "not-a-uuid"])
async def test_unknown_turn_is_404_for_events_and_cancel(live: LiveServer, turn_id: str) -> None:
    assert (await live.http.get(f"/v1/turns/{turn_id}/events")).status_code == 404
    assert (await live.http.post(f"/v1/turns/{turn_id}/cancel")).status_code == 404
    assert (await live.http.get(f"/v1/turns/{turn_id}")).status_code == 404
