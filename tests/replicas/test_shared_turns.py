"""Two real replicas on one PostgreSQL database and one Redis serve one user with no
sticky routing: a turn started on A is followed, resumed, joined and cancelled on B; B
refuses a second turn of the session; of concurrent POSTs on both, exactly one runs; the
turn rate limit counts on both together."""

from __future__ import annotations

import asyncio
from asyncio import FIRST_COMPLETED
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
    env = {"PANTHEON_LIMITS__TURNS_PER_MINUTE": "9"}
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

            # Four POSTs for a new session at once, two per replica: exactly one runs.
            upstream.queue(Reply(chunks=["a ", "b ", "c "], hang_after=2, hang_s=60))
            other = (await create_session(on_a, room["id"]))["id"]
            burst = [  # rate: 4-7
                asyncio.create_task(http.post(f"/v1/sessions/{other}/turns", json={"message": m}))
                for m, http in (("1", on_a), ("2", on_b), ("3", on_a), ("4", on_b))
            ]
            refusals: list[str] = []
            while len(refusals) < 3:
                done, _ = await asyncio.wait(burst, timeout=60, return_when=FIRST_COMPLETED)
                assert done, "no POST of the burst answered"
                for task in done:
                    burst.remove(task)
                    assert task.result().status_code == 409, task.result().text
                    refusals.append(task.result().json()["running_turn_id"])
            assert len(set(refusals)) == 1  # all name the one running turn
            assert (await on_b.post(f"/v1/turns/{refusals[0]}/cancel")).status_code == 200
            (winner,) = burst
            assert (await winner).json()["id"] == refusals[0]

            # The rate limit counts both replicas: 7 turns so far, 9 a minute.
            assert (await on_a.post(turns, json={"message": "8"})).status_code == 201
            assert (await on_b.post(turns, json={"message": "9"})).status_code == 201
            limited = await on_a.post(turns, json={"message": "10"})
            assert limited.status_code == 429, limited.text
            assert int(limited.headers["Retry-After"]) >= 1
    finally:
        await a.stop()
        await b.stop()
