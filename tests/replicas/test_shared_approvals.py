"""Approvals on two real replicas (one PostgreSQL, one Redis): of decisions racing for one
paused turn, whichever replica each reaches, exactly one continuation runs the approved
call and the others are 409; a continuation whose replica is killed is recorded by the
other as the continuation it was, and the paused turn stays decided (docs/approvals.md)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from tests.llm.mock_openai import MockOpenAI, Reply, fragment, tool_chunk
from tests.redis_server import RedisServer
from tests.replicas.cluster import FAST, replica_env, start_replica
from tests.sse import open_stream

pytestmark = [pytest.mark.redis, pytest.mark.postgres]
ROUNDS = 3
RACERS = 8  # half on each replica
CALL = tool_chunk(
    fragment(0, "c-calc", "calculator", '{"expression": "17*23"}'), finish="tool_calls"
)


async def _calc_session(http: httpx.AsyncClient) -> str:
    """A session on an agent whose calculator needs approval."""
    agent = {"key": "calc", "name": "Calc", "role_prompt": "Count.", "tools": ["calculator!"]}
    created = (await http.post("/v1/agents", json=agent)).json()
    session = await http.post(f"/v1/agents/{created['id']}/sessions", json={"title": "t"})
    session_id: str = session.json()["id"]
    return session_id


async def _paused_turn(http: httpx.AsyncClient, session_id: str, upstream: MockOpenAI) -> str:
    upstream.queue(Reply(raw=[CALL], chunks=()))
    url = f"/v1/sessions/{session_id}/turns"
    async with open_stream(http, url, method="POST", json={"message": "17*23?"}) as stream:
        events = await stream.rest()
    assert events[-1][1]["status"] == "awaiting_approval", events[-1]
    turn_id: str = events[0][1]["turn_id"]
    return turn_id


async def test_racing_decisions_on_two_replicas_run_the_call_once(
    tmp_path: Path, upstream: MockOpenAI, redis: RedisServer, database_url: str
) -> None:
    env = {"PANTHEON_LIMITS__TURNS_PER_MINUTE": "1000"}
    a = await start_replica(replica_env(tmp_path / "a", database_url, redis.url, upstream, **env))
    b = await start_replica(replica_env(tmp_path / "b", database_url, redis.url, upstream, **env))
    try:
        async with a.client() as on_a, b.client() as on_b:
            session_id = await _calc_session(on_a)
            body = {"decisions": [{"call_id": "c-calc", "approve": True}]}
            for _ in range(ROUNDS):
                paused_id = await _paused_turn(on_a, session_id, upstream)
                answers = await asyncio.gather(
                    *(
                        (on_a, on_b)[i % 2].post(f"/v1/turns/{paused_id}/approvals", json=body)
                        for i in range(RACERS)
                    )
                )
                codes = sorted(r.status_code for r in answers)
                assert codes == [201] + [409] * (RACERS - 1), [r.text for r in answers]
                [winner] = [r.json() for r in answers if r.status_code == 201]
                assert winner["continues"] == paused_id
                [row] = winner["tool_calls"]
                assert (row["approval"], row["result"]) == ("approved", "391")
            listed = (await on_b.get(f"/v1/sessions/{session_id}/turns?limit=100")).json()
            statuses = [t["status"] for t in listed["items"]]
            assert statuses == ["awaiting_approval", "completed"] * ROUNDS
            # One model call per paused turn and one per continuation: no second run.
            assert len(upstream.received) == 2 * ROUNDS
    finally:
        await a.stop()
        await b.stop()


async def test_a_killed_replicas_continuation_keeps_the_decision(
    tmp_path: Path, upstream: MockOpenAI, redis: RedisServer, database_url: str
) -> None:
    a = await start_replica(replica_env(tmp_path / "a", database_url, redis.url, upstream))
    b = await start_replica(replica_env(tmp_path / "b", database_url, redis.url, upstream))
    approve = {"decisions": [{"call_id": "c-calc", "approve": True}]}
    try:
        async with a.client() as on_a, b.client() as on_b:
            session_id = await _calc_session(on_a)
            paused_id = await _paused_turn(on_a, session_id, upstream)
            # After the approved call, the model answers a little and then holds on.
            upstream.queue(Reply(chunks=["a ", "b ", "c "], hang_after=1, hang_s=120))
            url = f"/v1/turns/{paused_id}/approvals"
            async with open_stream(on_a, url, method="POST", json=approve) as continuation:
                seen = await continuation.until("delta")
                continuation_id = seen[0][1]["turn_id"]
                events = f"/v1/turns/{continuation_id}/events"
                async with open_stream(on_b, events) as follower:
                    await follower.until("delta")  # B's Redis has the tool's result too
                    a.kill()
                    await asyncio.wait_for(a.process.wait(), 20)
            noticed = float(FAST["PANTHEON_REDIS__LEASE_S"]) + 30
            for _ in range(round(noticed / 0.1)):  # B's sweeper records it
                turn = await on_b.get(f"/v1/turns/{continuation_id}")
                if turn.status_code == 200:
                    break
                await asyncio.sleep(0.1)
            again = await on_b.post(url, json=approve)
    finally:
        await a.stop()
        await b.stop()

    assert turn.status_code == 200, turn.text
    recorded = turn.json()
    assert (recorded["status"], recorded["continues"]) == ("interrupted", paused_id)
    assert recorded["message"] == "Approved calculator (c-calc)"
    rows = [(r["call_id"], r["approval"], r["result"]) for r in recorded["tool_calls"]]
    assert rows == [("c-calc", "approved", "391")]
    assert again.status_code == 409, again.text
    assert again.json()["continued_by"] == continuation_id
    assert len(upstream.received) == 2  # the paused turn's call and the continuation's
