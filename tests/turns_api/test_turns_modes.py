"""Every mode through the HTTP API, streamed and not, with the exact SSE sequence."""

from __future__ import annotations

import httpx

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.factories import create_agent, create_room, create_session
from tests.sse_client import deltas_by_agent, read_events, stream_turn, types


async def _room_session(client: httpx.AsyncClient, keys: list[str], mode: str) -> str:
    room = await create_room(client, keys, mode=mode)
    return str((await create_session(client, room["id"]))["id"])


async def test_roundtable_sse_sequence_and_record(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script("first answer", agent="alpha")
    scripted.script("second answer", agent="beta")
    session_id = await _room_session(client, ["alpha", "beta"], "roundtable")
    events = await stream_turn(client, session_id, {"message": "hi"})
    assert [seq for seq, _ in events] == list(range(1, len(events) + 1))
    assert types(events) == [
        "turn_started",
        "agent_started", "delta", "delta", "agent_completed",
        "agent_started", "delta", "delta", "agent_completed",
        "turn_completed",
    ]  # fmt: skip
    assert all(data["turn_id"] == events[0][1]["turn_id"] for _, data in events)
    done = events[-1][1]
    assert done["status"] == "completed"
    turn = (await client.get(f"/v1/turns/{done['turn_id']}")).json()
    assert turn["output"] == "Alpha: first answer\n\nBeta: second answer"
    assert [m["content"] for m in turn["messages"][1:]] == list(deltas_by_agent(events).values())
    assert [m["id"] for m in turn["messages"]] == done["message_ids"]
    # beta saw alpha's answer of this turn
    beta_prompt = scripted.calls(agent="beta")[0].request.messages
    assert "first answer" in " ".join(m.content for m in beta_prompt)


async def test_json_answer_equals_streamed_result(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    session_id = await _room_session(client, ["alpha"], "roundtable")
    response = await client.post(f"/v1/sessions/{session_id}/turns", json={"message": "hello"})
    assert response.status_code == 201
    turn = response.json()
    assert turn["status"] == "completed"
    assert turn["mode"] == "roundtable"
    assert [m["role"] for m in turn["messages"]] == ["user", "assistant"]
    assert [c["purpose"] for c in turn["llm_calls"]] == ["specialist"]
    replay = await read_events(client, turn["id"])
    assert types(replay)[-1] == "turn_completed"
    assert deltas_by_agent(replay)["alpha"] == turn["messages"][1]["content"]


async def test_manual_mode_runs_tagged_agents_in_mention_order(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    session_id = await _room_session(client, ["alpha", "beta", "gamma"], "manual")
    message = "@Gamma then @alpha, and @gamma again, @nobody"
    events = await stream_turn(client, session_id, {"message": message})
    assert events[0][1]["agents"] == ["gamma", "alpha"]
    assert [d["agent_key"] for _, d in events if d["type"] == "agent_started"] == [
        "gamma",
        "alpha",
    ]
    assert [c.request.agent_key for c in scripted.requests] == ["gamma", "alpha"]


async def test_turn_mode_override(client: httpx.AsyncClient, scripted: ScriptedProvider) -> None:
    session_id = await _room_session(client, ["alpha", "beta"], "roundtable")
    turn = await client.post(
        f"/v1/sessions/{session_id}/turns", json={"message": "@beta only", "mode": "manual"}
    )
    assert turn.json()["mode"] == "manual"
    assert [c.request.agent_key for c in scripted.requests] == ["beta"]


async def test_standalone_session(client: httpx.AsyncClient, scripted: ScriptedProvider) -> None:
    agent = await create_agent(client, "solo")
    session = (await client.post(f"/v1/agents/{agent['id']}/sessions")).json()
    scripted.script("just me", agent="solo")
    events = await stream_turn(client, session["id"], {"message": "hi"})
    assert types(events) == [
        "turn_started", "agent_started", "delta", "delta", "agent_completed", "turn_completed",
    ]  # fmt: skip
    assert events[0][1]["mode"] == "standalone"
    assert events[-1][1]["status"] == "completed"


async def test_orchestrator_sse_sequence(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script('{"agents": ["alpha", "beta"]}', purpose="route")
    scripted.script("a", agent="alpha")
    scripted.script("b", agent="beta")
    scripted.script('{"continue": false}', purpose="evaluate")
    scripted.script("final", purpose="synthesis")
    session_id = await _room_session(client, ["alpha", "beta"], "orchestrator")
    events = await stream_turn(client, session_id, {"message": "plan it"})
    kinds = types(events)
    assert kinds[:3] == ["turn_started", "round_start", "routing"]
    assert kinds[-5:] == [
        "synthesis_started",
        "delta",
        "synthesis_completed",
        "turn_completed",
    ][-5:] or kinds[-4:] == ["synthesis_started", "delta", "synthesis_completed", "turn_completed"]
    assert "evaluation" in kinds
    routing = events[2][1]
    assert routing["agents"] == ["alpha", "beta"]
    assert routing["fallback"] is False
    turn = (await client.get(f"/v1/turns/{events[-1][1]['turn_id']}")).json()
    assert turn["output"] == "[Round 1]\nAlpha: a\n\nBeta: b\n\nManager synthesis:\nfinal"
    assert turn["rounds"] == 1
    assert [m["role"] for m in turn["messages"]] == ["user", "assistant", "assistant", "manager"]
    assert turn["messages"][-1]["agent_key"] == "manager"
    purposes = [c["purpose"] for c in turn["llm_calls"]]
    assert purposes[0] == "route"
    assert sorted(purposes[1:3]) == ["specialist", "specialist"]
    assert purposes[3:] == ["evaluate", "synthesis"]
