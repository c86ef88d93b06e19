"""Redis restarting (empty) under two replicas: pooled connections to the old server are
replaced on their first failure, and a follower on the other replica still gets every
event of the turn and exactly one final event (from the turn's record when Redis lost
the stream)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.factories import create_room, create_session
from tests.llm.mock_openai import MockOpenAI, Reply
from tests.redis_server import RedisServer
from tests.replicas.cluster import replica_env, start_replica
from tests.sse import open_stream, types

pytestmark = [pytest.mark.redis, pytest.mark.postgres]
WORDS = [f"w{i} " for i in range(40)]
SLOW = Reply(chunks=WORDS, chunk_delay_s=0.05)  # ~2 s
FINAL = {"turn_completed", "error"}


async def test_after_a_redis_restart_a_follower_elsewhere_gets_the_whole_turn(
    tmp_path: Path, upstream: MockOpenAI, redis: RedisServer, database_url: str
) -> None:
    upstream.queue(SLOW, SLOW)
    a = await start_replica(replica_env(tmp_path / "a", database_url, redis.url, upstream))
    b = await start_replica(replica_env(tmp_path / "b", database_url, redis.url, upstream))
    try:
        async with a.client() as on_a, b.client() as on_b:
            room = await create_room(on_a, ["alpha"])
            session = (await create_session(on_a, room["id"]))["id"]
            turns = f"/v1/sessions/{session}/turns"
            for message in ("before", "after"):  # the first leaves pooled connections
                if message == "after":
                    await redis.restart()
                async with open_stream(
                    on_a, turns, method="POST", json={"message": message}
                ) as turn:
                    turn_id = (await turn.until("delta"))[0][1]["turn_id"]
                    async with open_stream(on_b, f"/v1/turns/{turn_id}/events") as follower:
                        followed = await follower.rest()
                    await turn.rest()
                assert followed == turn.seen, message
                assert [t for t in types(followed) if t in FINAL] == ["turn_completed"]
    finally:
        await a.stop()
        await b.stop()


async def test_a_follower_elsewhere_gets_the_rest_from_the_record_when_redis_lost_it(
    tmp_path: Path, upstream: MockOpenAI, redis: RedisServer, database_url: str
) -> None:
    upstream.queue(SLOW)
    a = await start_replica(replica_env(tmp_path / "a", database_url, redis.url, upstream))
    b = await start_replica(replica_env(tmp_path / "b", database_url, redis.url, upstream))
    try:
        async with a.client() as on_a, b.client() as on_b:
            room = await create_room(on_a, ["alpha"])
            session = (await create_session(on_a, room["id"]))["id"]
            turns = f"/v1/sessions/{session}/turns"
            async with open_stream(on_a, turns, method="POST", json={"message": "go"}) as turn:
                turn_id = (await turn.until("delta"))[0][1]["turn_id"]
                async with open_stream(on_b, f"/v1/turns/{turn_id}/events") as follower:
                    await follower.until("delta")
                    await redis.restart()  # the stream and the turn's keys are gone
                    await follower.rest()
                await turn.rest()
            assert types(turn.seen)[-1] == "turn_completed"
            assert follower.seen == turn.seen
            deltas = [data["text"] for _, data in follower.seen if data["type"] == "delta"]
            assert "".join(deltas) == "".join(WORDS)
    finally:
        await a.stop()
        await b.stop()
