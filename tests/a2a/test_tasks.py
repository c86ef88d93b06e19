"""Tasks outlive the request that started them: cancel a running one, list running and
recorded ones. Approvals: test_approvals.py; following a task again after a disconnect:
test_disconnect.py."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest
from a2a.types.a2a_pb2 import (
    CancelTaskRequest,
    GetTaskRequest,
    ListTasksRequest,
    SendMessageConfiguration,
    TaskState,
)
from a2a.utils.errors import TaskNotCancelableError
from fastapi import FastAPI

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.a2a.conftest import a2a_for, collect, message
from tests.factories import create_room

LONG_S = 30.0  # an agent call that would outlast the test, unless cancelled


async def _started(app: FastAPI, client: httpx.AsyncClient, room_id: str) -> str:
    """Start a turn and return at once (``returnImmediately``): its task id."""
    sdk = await a2a_for(app, room_id, streaming=False)
    request = message("take your time")
    request.configuration.CopyFrom(SendMessageConfiguration(return_immediately=True))
    [first] = await collect(sdk.send_message(request))
    assert first.task.status.state == TaskState.TASK_STATE_WORKING
    return first.task.id


async def test_cancel_a_running_task(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script("too late", agent="alpha", delay_s=LONG_S)
    room = await create_room(client, ["alpha"], mode="roundtable")
    task_id = await _started(app, client, room["id"])
    sdk = await a2a_for(app, room["id"])
    running = await sdk.get_task(GetTaskRequest(id=task_id))
    assert running.status.state == TaskState.TASK_STATE_WORKING
    cancelled = await sdk.cancel_task(CancelTaskRequest(id=task_id))
    assert cancelled.status.state == TaskState.TASK_STATE_CANCELED
    turn = (await client.get(f"/v1/turns/{task_id}")).json()
    assert turn["status"] == "cancelled"
    with pytest.raises(TaskNotCancelableError):
        await sdk.cancel_task(CancelTaskRequest(id=task_id))
    listed = await sdk.list_tasks(ListTasksRequest(status=TaskState.TASK_STATE_CANCELED))
    assert [t.id for t in listed.tasks] == [task_id]
    none = await sdk.list_tasks(ListTasksRequest(status=TaskState.TASK_STATE_COMPLETED))
    assert list(none.tasks) == []


async def test_list_tasks_shows_running_tasks_with_filters_and_pages(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script("done", agent="alpha")
    room = await create_room(client, ["alpha"], mode="roundtable")
    sdk = await a2a_for(app, room["id"], streaming=False)
    [ended] = await collect(sdk.send_message(message("quick")))
    recorded = ended.task
    scripted.script("too late", agent="alpha", delay_s=LONG_S)
    running = await _started(app, client, room["id"])
    listed = await sdk.list_tasks(ListTasksRequest())
    assert [(t.id, t.status.state) for t in listed.tasks] == [
        (running, TaskState.TASK_STATE_WORKING),
        (recorded.id, TaskState.TASK_STATE_COMPLETED),
    ]
    assert listed.total_size == 2
    assert listed.tasks[0].status.HasField("timestamp")
    first = await sdk.list_tasks(ListTasksRequest(page_size=1))
    assert [t.id for t in first.tasks] == [running]
    second = await sdk.list_tasks(ListTasksRequest(page_size=1, page_token=first.next_page_token))
    assert [t.id for t in second.tasks] == [recorded.id]
    assert second.next_page_token == ""
    working = await sdk.list_tasks(ListTasksRequest(status=TaskState.TASK_STATE_WORKING))
    assert [t.id for t in working.tasks] == [running]
    done = await sdk.list_tasks(ListTasksRequest(status=TaskState.TASK_STATE_COMPLETED))
    assert [t.id for t in done.tasks] == [recorded.id]
    in_context = await sdk.list_tasks(ListTasksRequest(context_id=recorded.context_id))
    assert [t.id for t in in_context.tasks] == [recorded.id]
    later = ListTasksRequest()
    later.status_timestamp_after.FromDatetime(datetime.now(UTC) + timedelta(hours=1))
    assert list((await sdk.list_tasks(later)).tasks) == []
    other = await create_room(client, [], mode="roundtable")
    elsewhere = await a2a_for(app, other["id"])
    assert list((await elsewhere.list_tasks(ListTasksRequest())).tasks) == []
    await sdk.cancel_task(CancelTaskRequest(id=running))
