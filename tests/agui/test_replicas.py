"""Two real replicas on one PostgreSQL database and one Redis: a run started on A is
picked up by posting it again to B (snapshot, then its events from the first), and
cancelled there; no second turn starts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from httpx_sse import aconnect_sse

from tests.agui.conftest import AGUI_EVENT, assert_well_formed, run_input
from tests.factories import create_room
from tests.llm.mock_openai import MockOpenAI, Reply
from tests.redis_server import RedisServer
from tests.replicas.cluster import replica_env, start_replica

pytestmark = [pytest.mark.redis, pytest.mark.postgres]
HANGING = Reply(chunks=["w0 ", "w1 ", "w2 "], hang_after=2, hang_s=120)


async def _stream(http: httpx.AsyncClient, url: str, body: dict[str, Any]) -> Any:
    async with aconnect_sse(http, "POST", url, json=body) as source:
        assert source.response.status_code == 200
        async for sse in source.aiter_sse():
            event: dict[str, Any] = json.loads(sse.data)
            AGUI_EVENT.validate_python(event)
            yield event


async def _until_text(stream: Any, text: str) -> list[dict[str, Any]]:
    seen = []
    async for event in stream:
        seen.append(event)
        if event["type"] == "TEXT_MESSAGE_CONTENT" and event["delta"] == text:
            return seen
    raise AssertionError(f"no {text!r}: {[e['type'] for e in seen]}")


async def test_a_run_on_one_replica_is_picked_up_on_the_other(
    tmp_path: Path, upstream: MockOpenAI, redis: RedisServer, database_url: str
) -> None:
    upstream.queue(HANGING)
    a = await start_replica(replica_env(tmp_path / "a", database_url, redis.url, upstream))
    b = await start_replica(replica_env(tmp_path / "b", database_url, redis.url, upstream))
    try:
        async with a.client() as http_a, b.client() as http_b:
            room = await create_room(http_a, ["alpha"], mode="roundtable")
            path, body = f"/agui/rooms/{room['id']}", run_input("go")
            on_a = _stream(http_a, path, body)
            first = await _until_text(on_a, "w1 ")
            on_b = _stream(http_b, path, body)
            picked = await _until_text(on_b, "w1 ")
            turn_id = first[0]["metadata"]["pantheon"]["turn_id"]
            cancelled = await http_b.post(f"/v1/turns/{turn_id}/cancel")
            assert cancelled.status_code == 200, cancelled.text
            rest = [event async for event in on_b]
            await on_a.aclose()
            turns = (await http_b.get(f"/v1/sessions/{body['threadId']}/turns")).json()
    finally:
        await a.stop()
        await b.stop()
    assert [e["type"] for e in picked[:2]] == ["RUN_STARTED", "MESSAGES_SNAPSHOT"]
    assert picked[0] == first[0]
    assert picked[2:] == first[1:]
    run = picked + rest
    assert_well_formed(run)
    assert run[-1]["outcome"] == {"type": "cancelled"}
    assert turns["total"] == 1
