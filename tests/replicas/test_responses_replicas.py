"""A background Responses API response started on replica A is retrieved, resumed from a
sequence number and cancelled on replica B (one PostgreSQL, one Redis, the official
openai SDK against both): a response is its turn, so any replica answers for it."""

from __future__ import annotations

from pathlib import Path

import openai
import pytest

from tests.factories import create_agent
from tests.llm.mock_openai import MockOpenAI, Reply
from tests.redis_server import RedisServer
from tests.replicas.cluster import replica_env, start_replica

pytestmark = [pytest.mark.redis, pytest.mark.postgres]
SLOW = Reply(chunks=[f"w{i} " for i in range(200)], chunk_delay_s=0.05)  # ~10 s


async def test_a_background_response_is_resumed_and_cancelled_on_another_replica(
    tmp_path: Path, upstream: MockOpenAI, redis: RedisServer, database_url: str
) -> None:
    upstream.queue(SLOW)
    a = await start_replica(replica_env(tmp_path / "a", database_url, redis.url, upstream))
    b = await start_replica(replica_env(tmp_path / "b", database_url, redis.url, upstream))
    on_a = openai.AsyncOpenAI(base_url=f"{a.url}/openai/v1", api_key="k", max_retries=0)
    on_b = openai.AsyncOpenAI(base_url=f"{b.url}/openai/v1", api_key="k", max_retries=0)
    try:
        async with a.client() as native:
            await create_agent(native, "solo")
        queued = await on_a.responses.create(model="agent-solo", input="go", background=True)
        stream = await on_b.responses.retrieve(queued.id, stream=True, starting_after=-1)
        first: list[int] = []
        async for event in stream:
            first.append(event.sequence_number)
            if event.type == "response.output_text.delta" and len(first) > 6:
                break
        await stream.close()
        assert first == list(range(len(first)))
        resumed = await on_b.responses.retrieve(queued.id, stream=True, starting_after=first[-1])
        following = await anext(aiter(resumed))
        await resumed.close()
        assert following.sequence_number == first[-1] + 1
        seen = await on_b.responses.retrieve(queued.id)
        assert seen.status == "in_progress"
        cancelled = await on_b.responses.cancel(queued.id)
        assert cancelled.status == "cancelled"
        assert cancelled.output_text.startswith("w0 w1 ")
        again = await on_a.responses.retrieve(queued.id)
        assert again.status == "cancelled"
    finally:
        await on_a.close()
        await on_b.close()
        await a.stop()
        await b.stop()
