"""Tasks outlive the request that started them: cancel a running one; an approval pause
is ``input-required``. Following a task again after a disconnect: test_disconnect.py."""

from __future__ import annotations

import httpx
import pytest
from a2a.types.a2a_pb2 import (
    CancelTaskRequest,
    GetTaskRequest,
    ListTasksRequest,
    SendMessageConfiguration,
    SubscribeToTaskRequest,
    TaskState,
)
from a2a.utils.errors import TaskNotCancelableError, UnsupportedOperationError
from fastapi import FastAPI

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.a2a.conftest import a2a_for, collect, message
from tests.engine.toolbox import TestTools, calculator, use_tools
from tests.factories import add_to_room, create_agent, create_room
from tests.turns_api.approvals_helpers import decide, decisions, echo, gated_agent

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


async def test_an_approval_pause_is_input_required(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    use_tools(app, TestTools({"calculator": calculator, "echo": echo}))
    scripted.script(gated_agent, agent="calc")
    room = await create_room(client, [], mode="roundtable")
    calc = await create_agent(client, "calc", tools=["calculator!"])
    await add_to_room(client, room["id"], calc["id"])
    sdk = await a2a_for(app, room["id"])
    events = await collect(sdk.send_message(message("what is 17*23?")))
    final = events[-1].status_update.status
    assert final.state == TaskState.TASK_STATE_INPUT_REQUIRED
    assert "calculator" in final.message.parts[0].text
    task_id = events[0].task.id
    task = await sdk.get_task(GetTaskRequest(id=task_id))
    assert task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
    [snapshot] = await collect(sdk.subscribe(SubscribeToTaskRequest(id=task_id)))
    assert snapshot.task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
    # A message on the paused task is refused, naming where it is decided.
    with pytest.raises(UnsupportedOperationError, match="approvals"):
        await collect(sdk.send_message(message("yes", task_id=task_id)))
    decided = await decide(client, task_id, decisions(("c-calc", True, "fine")))
    assert decided.status_code in (200, 201, 202), decided.text
