"""Redis going away mid-turn: the running turn still commits (the record is PostgreSQL's)
and its stream on the owner goes on; new turns get a 503 that names Redis."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.factories import create_room, create_session
from tests.llm.mock_openai import MockOpenAI, Reply
from tests.redis_server import RedisServer
from tests.replicas.cluster import replica_env, start_replica
from tests.sse import open_stream, types

pytestmark = [pytest.mark.redis, pytest.mark.postgres]
WORDS = [f"w{i} " for i in range(60)]


async def test_a_turn_commits_when_redis_goes_away_and_new_turns_get_503(
    tmp_path: Path, upstream: MockOpenAI, redis: RedisServer, database_url: str
) -> None:
    upstream.queue(Reply(chunks=WORDS, chunk_delay_s=0.05))
    a = await start_replica(replica_env(tmp_path / "a", database_url, redis.url, upstream))
    try:
        async with a.client() as http:
            ready = await http.get("/ready")
            assert ready.status_code == 200, ready.text
            assert ready.json()["live_turns"] == "redis"
            room = await create_room(http, ["alpha"])
            session = (await create_session(http, room["id"]))["id"]
            turns = f"/v1/sessions/{session}/turns"
            async with open_stream(http, turns, method="POST", json={"message": "go"}) as turn:
                await turn.until("delta")
                await redis.stop()
                await turn.rest()
            events = turn.seen
            assert types(events)[-1] == "turn_completed"
            assert events[-1][1]["status"] == "completed"
            detail = await http.get(f"/v1/turns/{events[0][1]['turn_id']}")  # no Redis needed
            assert detail.status_code == 200, detail.text
            assert detail.json()["status"] == "completed"
            assert "".join(WORDS).strip() in detail.json()["output"]
            deltas = [data["text"] for _, data in events if data["type"] == "delta"]
            assert "".join(deltas) == "".join(WORDS)  # nothing lost on the way

            refused = await http.post(turns, json={"message": "next"})
            assert refused.status_code == 503, refused.text
            assert "Redis" in refused.json()["detail"]

            # What the database has is still served; what only Redis knows is a 503.
            turn_id = events[0][1]["turn_id"]
            async with open_stream(http, f"/v1/turns/{turn_id}/events") as replay:
                assert await replay.rest() == events
            unknown = await http.post("/v1/turns/00000000-0000-4000-8000-000000000000/cancel")
            assert unknown.status_code == 503, unknown.text
            # Readiness says so, so a load balancer stops sending turns here.
            unready = await http.get("/ready")
            assert unready.status_code == 503, unready.text
            assert "Redis" in unready.json()["detail"]
    finally:
        await a.stop()
