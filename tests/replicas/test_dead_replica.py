"""SIGKILL of the replica running a turn: once its lease lapses, the other replica
records the turn ``interrupted`` (the user's message and the text its stream held) and
ends its own listeners with ``error`` / ``interrupted``; an idempotent retry of the POST
then runs the turn again."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest

from tests.factories import create_room, create_session
from tests.llm.mock_openai import MockOpenAI, Reply
from tests.redis_server import RedisServer
from tests.replicas.cluster import FAST, replica_env, start_replica
from tests.sse import open_stream, types

pytestmark = [pytest.mark.redis, pytest.mark.postgres]
CHUNKS = [f"w{i} " for i in range(40)]
STREAMED = 6  # the upstream sends this many chunks, then holds the stream open
# Lease + sweep interval, plus room for a loaded machine.
NOTICED_S = float(FAST["PANTHEON_REDIS__LEASE_S"]) + float(FAST["PANTHEON_REDIS__SWEEP_INTERVAL_S"])


async def test_a_killed_replicas_turn_is_recorded_interrupted_by_the_other(
    tmp_path: Path, upstream: MockOpenAI, redis: RedisServer, database_url: str
) -> None:
    upstream.queue(Reply(chunks=CHUNKS, chunk_delay_s=0.02, hang_after=STREAMED, hang_s=120))
    a = await start_replica(replica_env(tmp_path / "a", database_url, redis.url, upstream))
    b = await start_replica(replica_env(tmp_path / "b", database_url, redis.url, upstream))
    key, body = {"Idempotency-Key": "kill-9"}, {"message": "tell me everything"}
    try:
        async with a.client() as on_a, b.client() as on_b:
            room = await create_room(on_a, ["alpha"], mode="roundtable")
            session = (await create_session(on_a, room["id"]))["id"]
            turns = f"/v1/sessions/{session}/turns"
            async with open_stream(on_a, turns, method="POST", json=body, headers=key) as first:
                turn_id = (await first.until("delta"))[0][1]["turn_id"]
                async with open_stream(on_b, f"/v1/turns/{turn_id}/events") as follower:
                    for _ in range(STREAMED):  # B has every delta the upstream sent
                        await follower.until("delta")
                    a.kill()
                    assert await asyncio.wait_for(a.process.wait(), 20) == -signal.SIGKILL
                    # The listener ends by itself within the lease and a sweep.
                    await asyncio.wait_for(follower.rest(), timeout=NOTICED_S + 30)
            turn = (await on_b.get(f"/v1/turns/{turn_id}")).json()
            async with open_stream(on_b, f"/v1/turns/{turn_id}/events") as replay:
                await replay.rest()
            upstream.queue(Reply(chunks=["again"]))
            retry = await on_b.post(turns, json=body, headers=key)
    finally:
        await a.stop()
        await b.stop()

    events = follower.seen
    assert types(events)[-1] == "error"
    assert events[-1][1]["code"] == "interrupted"
    assert [seq for seq, _ in events] == list(range(1, len(events) + 1))
    streamed = "".join(d["text"] for _, d in events if d["type"] == "delta")
    assert streamed == "".join(CHUNKS[:STREAMED])

    assert (turn["status"], turn["error_code"]) == ("interrupted", "interrupted")
    messages = [(m["role"], m["content"], m["status"]) for m in turn["messages"]]
    assert messages == [
        ("user", "tell me everything", "ok"),
        ("assistant", streamed, "cancelled"),
    ]
    assert replay.seen == events  # what B's listener saw is what was recorded

    assert retry.status_code == 201, retry.text
    assert retry.json()["id"] != turn_id
    assert retry.json()["status"] == "completed"
    assert retry.json()["output"] == "Alpha: again"
