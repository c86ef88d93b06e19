"""Approvals over A2A with the official client (ADR 0023): a paused turn is an
``input-required`` task naming its pending calls; a message on that task decides them
through the approvals path, and the continuation runs as the same task."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from a2a.client import Client
from a2a.types.a2a_pb2 import (
    GetTaskRequest,
    ListTasksRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
    StreamResponse,
    SubscribeToTaskRequest,
    TaskState,
)
from a2a.utils.errors import (
    ContentTypeNotSupportedError,
    InvalidParamsError,
    InvalidRequestError,
    UnsupportedOperationError,
)
from fastapi import FastAPI
from google.protobuf.json_format import MessageToDict, ParseDict
from google.protobuf.struct_pb2 import Value

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.a2a.conftest import a2a_for, collect, message
from tests.a2a.test_errors import UNKNOWN
from tests.engine.toolbox import TestTools, calculator, use_tools
from tests.factories import add_to_room, create_agent, create_room
from tests.turns_api.approvals_helpers import decide, decisions, echo, gated_agent


async def _paused(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider, tools: list[str]
) -> tuple[Client, list[StreamResponse]]:
    """A room whose agent ``calc`` calls gated tools; its first task, paused."""
    use_tools(app, TestTools({"calculator": calculator, "echo": echo}))
    scripted.script(gated_agent, agent="calc")
    room = await create_room(client, [], mode="roundtable")
    calc = await create_agent(client, "calc", tools=tools)
    await add_to_room(client, room["id"], calc["id"])
    sdk = await a2a_for(app, room["id"])
    return sdk, await collect(sdk.send_message(message("what is 17*23?")))


def _data(body: dict[str, Any], task_id: str) -> SendMessageRequest:
    part = Part(data=ParseDict(body, Value()))
    sent = Message(role=Role.ROLE_USER, message_id="d-1", task_id=task_id, parts=[part])
    return SendMessageRequest(message=sent)


def _pending(events: list[StreamResponse]) -> list[dict[str, Any]]:
    parts = events[-1].status_update.status.message.parts
    data = [MessageToDict(part.data) for part in parts if part.WhichOneof("content") == "data"]
    assert len(data) == 1, parts
    pending: list[dict[str, Any]] = data[0]["pending"]
    return pending


async def test_approve_with_text_continues_the_same_task(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    sdk, events = await _paused(app, client, scripted, ["calculator!"])
    task_id = events[0].task.id
    final = events[-1].status_update.status
    assert final.state == TaskState.TASK_STATE_INPUT_REQUIRED
    assert "calculator" in final.message.parts[0].text
    assert _pending(events) == [
        {"call_id": "c-calc", "agent_key": "calc", "name": "calculator",
         "arguments": {"expression": "17*23"}},
    ]  # fmt: skip
    paused = await sdk.get_task(GetTaskRequest(id=task_id))
    assert paused.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
    [snapshot] = await collect(sdk.subscribe(SubscribeToTaskRequest(id=task_id)))
    assert snapshot.task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
    with pytest.raises(InvalidParamsError, match="approve"):
        await collect(sdk.send_message(message("maybe later", task_id=task_id)))
    elsewhere = message("approve", task_id=task_id, context_id=UNKNOWN)
    with pytest.raises(InvalidParamsError, match="not 0000"):
        await collect(sdk.send_message(elsewhere))

    continued = await collect(sdk.send_message(message("Approve", task_id=task_id)))
    assert {e.task.id for e in continued if e.HasField("task")} == {task_id}
    assert {e.status_update.task_id for e in continued if e.HasField("status_update")} == {task_id}
    assert continued[-1].status_update.status.state == TaskState.TASK_STATE_COMPLETED
    answer = "".join(
        p.text
        for e in continued
        if e.HasField("artifact_update")
        for p in e.artifact_update.artifact.parts
    )
    assert "391" in answer
    task = await sdk.get_task(GetTaskRequest(id=task_id))
    assert task.status.state == TaskState.TASK_STATE_COMPLETED
    assert "391" in task.artifacts[0].parts[0].text
    assert task.history[0].parts[0].text == "what is 17*23?"
    assert len(task.history) == 2  # the question, then what was decided
    listed = await sdk.list_tasks(ListTasksRequest())
    assert [(t.id, t.status.state) for t in listed.tasks] == [
        (task_id, TaskState.TASK_STATE_COMPLETED)
    ]
    # Decided twice: the native 409 as the protocol's error, naming the continuation.
    with pytest.raises(InvalidRequestError, match="already decided"):
        await collect(sdk.send_message(message("reject", task_id=task_id)))


async def test_decisions_as_a_data_part_for_several_calls(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    sdk, events = await _paused(app, client, scripted, ["calculator!", "echo!"])
    task_id = events[0].task.id
    assert [call["call_id"] for call in _pending(events)] == ["c-calc", "c-echo"]
    with pytest.raises(InvalidParamsError, match="2 calls await"):
        await collect(sdk.send_message(message("approve", task_id=task_id)))
    with pytest.raises(InvalidParamsError, match="no decision for pending call"):
        await collect(sdk.send_message(_data(decisions(("c-calc", True, "")), task_id)))
    with pytest.raises(InvalidParamsError, match="not valid"):
        await collect(sdk.send_message(_data({"decisions": [{"call_id": "c-calc"}]}, task_id)))
    bad_part = message("x", task_id=task_id)
    bad_part.message.parts[0].CopyFrom(Part(url="https://example.com/x"))
    with pytest.raises(ContentTypeNotSupportedError):
        await collect(sdk.send_message(bad_part))
    body = decisions(("c-calc", False, "not now"), ("c-echo", True, ""))
    continued = await collect(sdk.send_message(_data(body, task_id)))
    assert continued[-1].status_update.status.state == TaskState.TASK_STATE_COMPLETED
    turn = (await client.get(f"/v1/turns/{task_id}")).json()
    assert turn["status"] == "awaiting_approval"  # the paused turn's record is unchanged


async def test_a_task_decided_natively_is_not_decided_again(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    sdk, events = await _paused(app, client, scripted, ["calculator!"])
    task_id = events[0].task.id
    decided = await decide(client, task_id, decisions(("c-calc", True, "fine")))
    assert decided.status_code == 201, decided.text
    with pytest.raises(InvalidRequestError, match="already decided") as raised:
        await collect(sdk.send_message(message("approve", task_id=task_id)))
    assert raised.value.data is not None
    task = await sdk.get_task(GetTaskRequest(id=task_id))
    assert task.status.state == TaskState.TASK_STATE_COMPLETED
    # A task that never paused takes no message either.
    scripted.script("hello", agent="alpha")
    room = await create_room(client, ["alpha"], mode="roundtable")
    plain = await a2a_for(app, room["id"])
    done = (await collect(plain.send_message(message("hello again"))))[0].task
    with pytest.raises(UnsupportedOperationError, match="only a task awaiting approval"):
        await collect(plain.send_message(message("approve", task_id=done.id)))


async def test_two_decisions_at_once_continue_the_task_once(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    sdk, events = await _paused(app, client, scripted, ["calculator!"])
    task_id = events[0].task.id
    other = await a2a_for(app, await _room_of(client, task_id))
    both = await asyncio.gather(
        collect(sdk.send_message(message("approve", task_id=task_id))),
        collect(other.send_message(message("reject: no", task_id=task_id))),
        return_exceptions=True,
    )
    won = [r for r in both if not isinstance(r, BaseException)]
    lost = [r for r in both if isinstance(r, BaseException)]
    assert len(won) == 1, both
    assert len(lost) == 1
    assert isinstance(lost[0], InvalidRequestError), lost  # the native 409
    continuations = (await client.get(f"/v1/sessions/{events[0].task.context_id}/turns")).json()
    assert len(continuations["items"]) == 2  # the paused turn and one continuation


async def test_decide_over_http_json(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    _sdk, events = await _paused(app, client, scripted, ["calculator!"])
    task_id = events[0].task.id
    rest = await a2a_for(app, await _room_of(client, task_id), bindings=("HTTP+JSON",))
    body = decisions(("c-calc", True, ""))
    continued = await collect(rest.send_message(_data(body, task_id)))
    assert continued[-1].status_update.status.state == TaskState.TASK_STATE_COMPLETED
    task = await rest.get_task(GetTaskRequest(id=task_id))
    assert task.status.state == TaskState.TASK_STATE_COMPLETED


async def _room_of(client: httpx.AsyncClient, turn_id: str) -> str:
    turn = (await client.get(f"/v1/turns/{turn_id}")).json()
    session = (await client.get(f"/v1/sessions/{turn['session_id']}")).json()
    room_id: str = session["room_id"]
    return room_id
