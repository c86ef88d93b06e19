"""``CancelTask`` on an ``input-required`` task (a turn paused for approval, ADR 0030):
the task ends ``canceled``, its pending calls rejected and never run, and its context takes
new messages; in both bindings."""

from __future__ import annotations

import httpx
import pytest
from a2a.types.a2a_pb2 import CancelTaskRequest, GetTaskRequest, ListTasksRequest, TaskState
from a2a.utils.errors import InvalidRequestError, TaskNotCancelableError
from fastapi import FastAPI

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.a2a.conftest import a2a_for, collect, message
from tests.engine.toolbox import TestTools, calculator, use_tools
from tests.factories import add_to_room, create_agent, create_room
from tests.turns_api.approvals_helpers import echo, gated_agent

CANCELED = TaskState.TASK_STATE_CANCELED


async def _paused_room(app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider) -> str:
    use_tools(app, TestTools({"calculator": calculator, "echo": echo}))
    scripted.script(gated_agent, agent="calc")
    room = await create_room(client, [], mode="roundtable")
    calc = await create_agent(client, "calc", tools=["calculator!"])
    await add_to_room(client, room["id"], calc["id"])
    room_id: str = room["id"]
    return room_id


@pytest.mark.parametrize("binding", ["JSONRPC", "HTTP+JSON"])
async def test_an_input_required_task_can_be_canceled(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider, binding: str
) -> None:
    sdk = await a2a_for(app, await _paused_room(app, client, scripted), bindings=(binding,))
    events = await collect(sdk.send_message(message("what is 17*23?")))
    task_id, context_id = events[0].task.id, events[0].task.context_id
    assert events[-1].status_update.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
    model_calls = len(scripted.calls(agent="calc"))

    canceled = await sdk.cancel_task(CancelTaskRequest(id=task_id))
    assert (canceled.id, canceled.status.state) == (task_id, CANCELED)
    assert len(scripted.calls(agent="calc")) == model_calls  # nothing more ran
    task = await sdk.get_task(GetTaskRequest(id=task_id))
    assert task.status.state == CANCELED
    assert "Rejected calculator (c-calc): the turn was cancelled" in task.history[-1].parts[0].text
    listed = await sdk.list_tasks(ListTasksRequest(context_id=context_id))
    assert [(t.id, t.status.state) for t in listed.tasks] == [(task_id, CANCELED)]
    with pytest.raises(TaskNotCancelableError):
        await sdk.cancel_task(CancelTaskRequest(id=task_id))
    with pytest.raises(InvalidRequestError, match="already decided"):
        await collect(sdk.send_message(message("approve", task_id=task_id)))
    # The context is free again: a new message starts a task.
    again = await collect(sdk.send_message(message("and 2*3?", context_id=context_id)))
    assert again[0].task.id != task_id
    assert again[-1].status_update.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
