"""SIGKILL of the replica running a turn after one of its LLM calls finished: a follower
on the other replica never sees the internal ``llm_call`` event (ids stay 1, 2, 3 ...),
and the turn the other replica records ``interrupted`` keeps that call and its usage
(the internal event travelled through the Redis stream)."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest

from tests.factories import create_room, create_session
from tests.llm.mock_openai import MockOpenAI, Reply
from tests.redis_server import RedisServer
from tests.replicas.cluster import replica_env, start_replica
from tests.replicas.test_dead_replica import NOTICED_S
from tests.sse import open_stream, types

pytestmark = [pytest.mark.redis, pytest.mark.postgres]


async def test_a_dead_replicas_turn_keeps_its_finished_calls_usage(
    tmp_path: Path, upstream: MockOpenAI, redis: RedisServer, database_url: str
) -> None:
    upstream.queue(Reply(chunks=["alpha ", "done"], usage=(11, 2)))
    upstream.queue(Reply(chunks=["beta ", "w1 ", "w2 "], hang_after=2, hang_s=120))
    a = await start_replica(replica_env(tmp_path / "a", database_url, redis.url, upstream))
    b = await start_replica(replica_env(tmp_path / "b", database_url, redis.url, upstream))
    try:
        async with a.client() as on_a, b.client() as on_b:
            room = await create_room(on_a, ["alpha", "beta"], mode="roundtable")
            session = (await create_session(on_a, room["id"]))["id"]
            turns = f"/v1/sessions/{session}/turns"
            async with open_stream(on_a, turns, method="POST", json={"message": "go"}) as first:
                turn_id = (await first.until("turn_started"))[0][1]["turn_id"]
                async with open_stream(on_b, f"/v1/turns/{turn_id}/events") as follower:
                    await follower.until("delta", agent_key="beta")
                    a.kill()
                    assert await asyncio.wait_for(a.process.wait(), 20) == -signal.SIGKILL
                    await asyncio.wait_for(follower.rest(), timeout=NOTICED_S + 30)
            turn = (await on_b.get(f"/v1/turns/{turn_id}")).json()
    finally:
        await a.stop()
        await b.stop()

    events = follower.seen
    assert "llm_call" not in types(events)
    assert "tool_call_record" not in types(events)
    assert [seq for seq, _ in events] == list(range(1, len(events) + 1))
    assert events[-1][1]["code"] == "interrupted"
    assert turn["status"] == "interrupted"
    calls = [(c["agent_key"], c["status"], c["input_tokens"], c["output_tokens"])
             for c in turn["llm_calls"]]  # fmt: skip
    assert calls == [("alpha", "ok", 11, 2)]
    assert (turn["usage"]["input_tokens"], turn["usage"]["output_tokens"]) == (11, 2)
