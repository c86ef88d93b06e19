"""Two real replicas on one PostgreSQL database and one Redis: a task started on A is
read, listed, followed and cancelled on B; when A is killed mid-turn, B's followers (one
from before, one after the kill) and a cancel on B end with the task ``failed``
(interrupted), never hanging."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from a2a.client import Client, ClientConfig, ClientFactory
from a2a.types.a2a_pb2 import (
    CancelTaskRequest,
    GetTaskRequest,
    ListTasksRequest,
    SendMessageConfiguration,
    StreamResponse,
    SubscribeToTaskRequest,
    TaskState,
)
from a2a.utils.errors import TaskNotCancelableError, UnsupportedOperationError

from tests.a2a.conftest import message
from tests.factories import create_room
from tests.llm.mock_openai import MockOpenAI, Reply
from tests.redis_server import RedisServer
from tests.replicas.cluster import FAST, replica_env, start_replica

pytestmark = [pytest.mark.redis, pytest.mark.postgres]
HANGING = Reply(chunks=["w0 ", "w1 ", "w2 "], hang_after=2, hang_s=120)
NOTICED_S = float(FAST["PANTHEON_REDIS__LEASE_S"]) + float(FAST["PANTHEON_REDIS__SWEEP_INTERVAL_S"])


async def _client(http: httpx.AsyncClient, url: str, room_id: str) -> Client:
    return await ClientFactory(ClientConfig(httpx_client=http)).create_from_url(
        f"{url}/a2a/rooms/{room_id}"
    )


async def _start(agent: Client, context_id: str = "") -> str:
    request = message("go", context_id=context_id)
    request.configuration.CopyFrom(SendMessageConfiguration(return_immediately=True))
    async for event in agent.send_message(request):
        return event.task.id
    raise AssertionError("no task")


async def _following(agent: Client, task_id: str) -> AsyncIterator[StreamResponse]:
    stream = agent.subscribe(SubscribeToTaskRequest(id=task_id))
    first = await anext(stream)  # subscribed: the task's snapshot
    assert first.task.status.state == TaskState.TASK_STATE_WORKING
    return stream


async def test_a_task_of_one_replica_is_served_by_the_other(
    tmp_path: Path, upstream: MockOpenAI, redis: RedisServer, database_url: str
) -> None:
    upstream.queue(HANGING)
    upstream.queue(HANGING)
    a = await start_replica(replica_env(tmp_path / "a", database_url, redis.url, upstream))
    b = await start_replica(replica_env(tmp_path / "b", database_url, redis.url, upstream))
    try:
        async with a.client() as http_a, b.client() as http_b:
            room = await create_room(http_a, ["alpha"], mode="roundtable")
            on_a = await _client(http_a, a.url, room["id"])
            on_b = await _client(http_b, b.url, room["id"])
            task_id = await _start(on_a)
            running = await on_b.get_task(GetTaskRequest(id=task_id))
            assert running.status.state == TaskState.TASK_STATE_WORKING
            working = await on_b.list_tasks(ListTasksRequest())  # running on A, listed by B
            assert [(t.id, t.status.state) for t in working.tasks] == [
                (task_id, TaskState.TASK_STATE_WORKING)
            ]
            stream = await _following(on_b, task_id)
            cancelled = await on_b.cancel_task(CancelTaskRequest(id=task_id))
            assert cancelled.status.state == TaskState.TASK_STATE_CANCELED
            followed = [event async for event in stream]
            assert followed[-1].status_update.status.state == TaskState.TASK_STATE_CANCELED
            listed = await on_b.list_tasks(ListTasksRequest())
            assert [t.id for t in listed.tasks] == [task_id]

            second = await _start(on_a, context_id=running.context_id)
            stream = await _following(on_b, second)
            a.kill()
            assert await asyncio.wait_for(a.process.wait(), 20) == -signal.SIGKILL
            # B follows again, and cancels, the task of the dead replica: both end.
            ends = asyncio.gather(
                _drain(stream), _resubscribed(on_b, second), _cancel(on_b, second)
            )
            rest, again, stopped = await asyncio.wait_for(ends, timeout=NOTICED_S + 30)
            assert rest[-1].status_update.status.state == TaskState.TASK_STATE_FAILED
            assert again == stopped == TaskState.TASK_STATE_FAILED
            task = await on_b.get_task(GetTaskRequest(id=second))
            ended = await on_b.list_tasks(ListTasksRequest())
    finally:
        await a.stop()
        await b.stop()
    assert task.status.state == TaskState.TASK_STATE_FAILED
    assert "the server running this turn stopped" in task.status.message.parts[0].text
    assert [(t.id, t.status.state) for t in ended.tasks] == [
        (second, TaskState.TASK_STATE_FAILED),
        (task_id, TaskState.TASK_STATE_CANCELED),
    ]


async def _resubscribed(agent: Client, task_id: str) -> TaskState:
    """How a new subscription to ``task_id`` ends (the task, if it was over already)."""
    try:
        events = [event async for event in agent.subscribe(SubscribeToTaskRequest(id=task_id))]
    except UnsupportedOperationError:  # recorded interrupted before we asked: over
        return (await agent.get_task(GetTaskRequest(id=task_id))).status.state
    last = events[-1]
    return (
        last.status_update.status.state
        if last.HasField("status_update")
        else last.task.status.state
    )


async def _cancel(agent: Client, task_id: str) -> TaskState:
    """The state a cancel leaves ``task_id`` in (it waits for the task to end)."""
    try:
        return (await agent.cancel_task(CancelTaskRequest(id=task_id))).status.state
    except TaskNotCancelableError:  # recorded interrupted before we asked
        return (await agent.get_task(GetTaskRequest(id=task_id))).status.state


async def _drain(stream: AsyncIterator[StreamResponse]) -> list[StreamResponse]:
    return [event async for event in stream]
