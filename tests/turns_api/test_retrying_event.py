"""While the gateway waits to retry an agent's failed call, the turn says so: a public
``retrying`` event (attempt, limit, reason, wait) before the agent's answer (issue 24)."""

from __future__ import annotations

import httpx

from pantheon.llm.errors import RateLimited, Unavailable, UpstreamError
from pantheon.llm.providers.scripted import ScriptedProvider
from tests.factories import create_room, create_session
from tests.sse_client import read_events, stream_turn, types


async def test_each_retry_of_an_agent_is_announced_then_the_answer_streams(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script("back again", agent="alpha")
    scripted.script(error=Unavailable("cannot connect"), agent="alpha", times=1)
    scripted.script(error=UpstreamError("upstream returned 502"), agent="alpha", times=1)
    room = await create_room(client, ["alpha"], mode="roundtable")
    session = (await create_session(client, room["id"]))["id"]
    events = await stream_turn(client, session, {"message": "hi"})
    assert types(events) == [
        "turn_started", "agent_started", "retrying", "retrying",
        "delta", "delta", "agent_completed", "turn_completed",
    ]  # fmt: skip
    retries = [data for _, data in events if data["type"] == "retrying"]
    assert [(r["attempt"], r["max_attempts"], r["reason"]) for r in retries] == [
        (2, 6, "upstream_error"),
        (3, 6, "unavailable"),
    ]
    assert all(r["agent_key"] == "alpha" and r["round"] is None for r in retries)
    assert all(0 <= r["delay_s"] <= 0.005 for r in retries)
    assert events[-1][1]["status"] == "completed"
    # Replayed from the store like every public event; nothing else of it is recorded.
    turn_id = events[0][1]["turn_id"]
    replay = await read_events(client, turn_id)
    assert types(replay) == types(events)
    detail = (await client.get(f"/v1/turns/{turn_id}")).json()
    assert [c["status"] for c in detail["llm_calls"]] == ["ok"]


async def test_a_call_that_never_recovers_ends_in_agent_failed_after_its_notices(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script(error=RateLimited("429"), agent="alpha")
    room = await create_room(client, ["alpha"], mode="roundtable")
    session = (await create_session(client, room["id"]))["id"]
    events = await stream_turn(client, session, {"message": "hi"})
    notices = [data["attempt"] for _, data in events if data["type"] == "retrying"]
    assert notices == [2, 3, 4, 5, 6]
    failed = next(data for _, data in events if data["type"] == "agent_failed")
    assert failed["code"] == "rate_limited"
    assert events[-1][1]["status"] == "failed"
