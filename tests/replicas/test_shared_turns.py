"""Two real replicas on one PostgreSQL database and one Redis serve one user with no
sticky routing: a turn started on A is followed, resumed, joined and cancelled on B; B
refuses a second turn of the session; the turn rate limit counts on both together."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.factories import create_room, create_session
from tests.llm.mock_openai import MockOpenAI, Reply
from tests.redis_server import RedisServer
from tests.replicas.cluster import replica_env, start_replica
from tests.sse import open_stream, types

pytestmark = [pytest.mark.redis, pytest.mark.postgres]
SLOW = Reply(chunks=[f"w{i} " for i in range(200)], chunk_delay_s=0.05)  # ~10 s


async def test_any_replica_follows_resumes_joins_and_cancels_a_turn(
    tmp_path: Path, upstream: MockOpenAI, redis: RedisServer, database_url: str
) -> None:
    upstream.queue(SLOW)
    env = {"PANTHEON_LIMITS__TURNS_PER_MINUTE": "5"}
    a = await start_replica(replica_env(tmp_path / "a", database_url, redis.url, upstream, **env))
    b = await start_replica(replica_env(tmp_path / "b", database_url, redis.url, upstream, **env))
    try:
        async with a.client() as on_a, b.client() as on_b:
            room = await create_room(on_a, ["alpha"])
            session = (await create_session(on_a, room["id"]))["id"]
            turns, key = f"/v1/sessions/{session}/turns", {"Idempotency-Key": "k1"}
            body = {"message": "go"}
            async with open_stream(on_a, turns, method="POST", json=body, headers=key) as first:
                seen = await first.until("delta")  # rate: 1 (A)
                turn_id = seen[0][1]["turn_id"]
                resume_at = seen[-1][0]
                events = f"/v1/turns/{turn_id}/events"
                resumed_hdr = {"Last-Event-ID": str(resume_at)}
                async with open_stream(on_b, events, headers=resumed_hdr) as resumed:
                    assert (await resumed.until("delta"))[0][0] == resume_at + 1

                    second = await on_b.post(turns, json={"message": "again"})  # rate: 2 (B)
                    assert second.status_code == 409, second.text
                    assert turn_id in second.json()["detail"]
                    assert second.json()["running_turn_id"] == turn_id

                    async with open_stream(  # rate: 3 (B): an idempotent retry joins
                        on_b, turns, method="POST", json=body, headers=key
                    ) as joined:
                        await joined.until("delta")
                        cancelled = await on_b.post(f"/v1/turns/{turn_id}/cancel")
                        assert cancelled.status_code == 200, cancelled.text
                        assert cancelled.json()["status"] == "cancelled"
                        await joined.rest()
                    resumed_rest = await resumed.rest()
                first_rest = await first.rest()

            everything = seen + first_rest
            assert types(everything)[-1] == "turn_completed"
            assert everything[-1][1]["status"] == "cancelled"
            assert [seq for seq, _ in everything] == list(range(1, len(everything) + 1))
            assert joined.seen == everything  # the retry streamed A's turn from its start
            assert resumed.seen[-1] == everything[-1]
            assert resumed.seen[0][0] == resume_at + 1
            assert resumed.seen == everything[resume_at:]
            assert resumed_rest[-1][1]["type"] == "turn_completed"

            # B replays the finished turn from the database, as A does.
            async with open_stream(on_b, events) as replay:
                assert await replay.rest() == everything

            # The rate limit counts both replicas: 3 turns so far, 5 a minute.
            assert (await on_a.post(turns, json={"message": "4"})).status_code == 201
            assert (await on_b.post(turns, json={"message": "5"})).status_code == 201
            limited = await on_a.post(turns, json={"message": "6"})
            assert limited.status_code == 429, limited.text
            assert int(limited.headers["Retry-After"]) >= 1
    finally:
        await a.stop()
        await b.stop()
