"""Traces across replicas: a turn whose replica is SIGKILLed mid-call and that another
replica records ``interrupted`` still makes one trace, whose turn span is the parent the
dead replica named in the ``traceparent`` it sent upstream; the call that settled before
the kill is a ``chat`` span under its agent."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.factories import create_room, create_session
from tests.llm.mock_openai import MockOpenAI, Reply
from tests.observability.otlp import OtlpReceiver, Span, children, one, otel_env, roots
from tests.redis_server import RedisServer
from tests.replicas.cluster import replica_env, start_replica
from tests.replicas.test_dead_replica import NOTICED_S
from tests.sse import open_stream

pytestmark = [pytest.mark.redis, pytest.mark.postgres]
CALLER = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"


@pytest.fixture
async def receiver() -> AsyncIterator[OtlpReceiver]:
    collector = OtlpReceiver()
    await collector.start()
    try:
        yield collector
    finally:
        await collector.stop()


async def test_a_turn_recorded_interrupted_on_another_replica_is_one_trace(
    tmp_path: Path,
    upstream: MockOpenAI,
    redis: RedisServer,
    database_url: str,
    receiver: OtlpReceiver,
) -> None:
    upstream.queue(Reply(chunks=["alpha ", "done"], usage=(11, 2)))
    upstream.queue(Reply(chunks=["beta ", "w1 ", "w2 "], hang_after=2, hang_s=120))
    traced = otel_env(receiver)
    a = await start_replica(
        replica_env(tmp_path / "a", database_url, redis.url, upstream, **traced)
    )
    b = await start_replica(
        replica_env(tmp_path / "b", database_url, redis.url, upstream, **traced)
    )
    try:
        async with a.client() as on_a, b.client() as on_b:
            room = await create_room(on_a, ["alpha", "beta"], mode="roundtable")
            session = (await create_session(on_a, room["id"]))["id"]
            turns = f"/v1/sessions/{session}/turns"
            body = {"message": "go"}
            headers = {"traceparent": CALLER}
            async with open_stream(on_a, turns, method="POST", json=body, headers=headers) as s:
                turn_id = (await s.until("turn_started"))[0][1]["turn_id"]
                await s.until("delta", agent_key="beta")
                # Only what reached Redis survives the kill: wait until the other replica
                # sees beta's delta too, so the record holds beta's agent.
                async with open_stream(on_b, f"/v1/turns/{turn_id}/events") as follower:
                    await follower.until("delta", agent_key="beta")
                a.kill()
                assert await asyncio.wait_for(a.process.wait(), 20) == -signal.SIGKILL

            def recorded(spans: list[Span]) -> bool:
                return any(r.attributes.get("pantheon.turn.id") == turn_id for r in roots(spans))

            async with asyncio.timeout(NOTICED_S + 60):
                spans = await receiver.wait_for(recorded)
            assert (await on_b.get(f"/v1/turns/{turn_id}")).json()["status"] == "interrupted"
    finally:
        await a.stop()
        await b.stop()

    trace_id, caller_span = CALLER.split("-")[1:3]
    spans = receiver.trace(trace_id)
    root = one(spans, "turn roundtable")
    assert root.parent_id == caller_span
    assert root.error
    assert root.attributes["pantheon.turn.status"] == "interrupted"
    assert root.attributes["pantheon.turn.id"] == turn_id
    sent = [r.headers.get("traceparent", "") for r in upstream.received]
    assert sent == [f"00-{trace_id}-{root.span_id}-01"] * 2  # both calls, from the dead replica
    alpha, beta = one(spans, "invoke_agent Alpha"), one(spans, "invoke_agent Beta")
    assert alpha.parent_id == beta.parent_id == root.span_id
    assert not alpha.error
    assert beta.attributes["error.type"] == "interrupted"
    (call,) = children(spans, alpha)
    assert call.name == "chat drip"
    assert call.attributes["gen_ai.request.model"] == "m"
    assert call.attributes["gen_ai.response.model"] == "m"
    assert (
        call.attributes["gen_ai.usage.input_tokens"],
        call.attributes["gen_ai.usage.output_tokens"],
    ) == (11, 2)
    assert len(roots(spans)) == 1
