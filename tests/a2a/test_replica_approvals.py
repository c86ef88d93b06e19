"""Approvals over A2A on two real replicas (one PostgreSQL, one Redis): a task paused on
A is decided by a message on B; its continuation, running on B, is listed on A under the
task's id and cancelled from A (ADR 0023)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from a2a.client import Client, ClientConfig, ClientFactory
from a2a.types.a2a_pb2 import (
    CancelTaskRequest,
    GetTaskRequest,
    ListTasksRequest,
    SendMessageConfiguration,
    TaskState,
)

from tests.a2a.conftest import collect, message
from tests.factories import add_to_room, create_agent, create_room
from tests.llm.mock_openai import MockOpenAI, Reply, fragment, tool_chunk
from tests.redis_server import RedisServer
from tests.replicas.cluster import replica_env, start_replica

pytestmark = [pytest.mark.redis, pytest.mark.postgres]
CALL = tool_chunk(
    fragment(0, "c-calc", "calculator", '{"expression": "17*23"}'), finish="tool_calls"
)
HANGING = Reply(chunks=["It is ", "391"], hang_after=1, hang_s=120)


async def _client(http: httpx.AsyncClient, url: str, room_id: str) -> Client:
    return await ClientFactory(ClientConfig(httpx_client=http, streaming=False)).create_from_url(
        f"{url}/a2a/rooms/{room_id}"
    )


async def test_a_task_paused_on_one_replica_is_decided_on_the_other(
    tmp_path: Path, upstream: MockOpenAI, redis: RedisServer, database_url: str
) -> None:
    upstream.queue(Reply(raw=[CALL], chunks=()), HANGING)
    a = await start_replica(replica_env(tmp_path / "a", database_url, redis.url, upstream))
    b = await start_replica(replica_env(tmp_path / "b", database_url, redis.url, upstream))
    try:
        async with a.client() as http_a, b.client() as http_b:
            room = await create_room(http_a, [], mode="roundtable")
            calc = await create_agent(http_a, "calc", tools=["calculator!"])
            await add_to_room(http_a, room["id"], calc["id"])
            on_a = await _client(http_a, a.url, room["id"])
            on_b = await _client(http_b, b.url, room["id"])
            [paused] = await collect(on_a.send_message(message("what is 17*23?")))
            task_id = paused.task.id
            assert paused.task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
            decide = message("approve", task_id=task_id)
            decide.configuration.CopyFrom(SendMessageConfiguration(return_immediately=True))
            [started] = await collect(on_b.send_message(decide))
            assert started.task.id == task_id
            assert started.task.status.state == TaskState.TASK_STATE_WORKING
            listed = await on_a.list_tasks(ListTasksRequest())
            working = await on_a.get_task(GetTaskRequest(id=task_id))
            cancelled = await on_a.cancel_task(CancelTaskRequest(id=task_id))
            ended = await on_b.get_task(GetTaskRequest(id=task_id))
            turn = (await http_a.get(f"/v1/turns/{task_id}")).json()
    finally:
        await a.stop()
        await b.stop()
    assert [(t.id, t.status.state) for t in listed.tasks] == [
        (task_id, TaskState.TASK_STATE_WORKING)
    ]
    assert working.status.state == TaskState.TASK_STATE_WORKING
    assert cancelled.status.state == TaskState.TASK_STATE_CANCELED
    assert ended.status.state == TaskState.TASK_STATE_CANCELED
    assert len(ended.history) == 2  # the question, then the decision
    assert turn["status"] == "awaiting_approval"  # the paused turn's own record
