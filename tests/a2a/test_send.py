"""Sending a message to a room's agent runs an ordinary turn: the task is the turn, the
context its session, the answer the artifact (tests/a2a/conftest.py has the client)."""

from __future__ import annotations

import httpx
from a2a.types.a2a_pb2 import (
    GetTaskRequest,
    ListTasksRequest,
    StreamResponse,
    TaskState,
)
from fastapi import FastAPI
from google.protobuf.json_format import MessageToDict

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.a2a.conftest import a2a_for, collect, message
from tests.factories import create_room
from tests.scripted_turns import (
    FALLBACK_ANSWER,
    script_orchestrator,
    script_unreachable_manager,
)


def answer_of(events: list[StreamResponse]) -> str:
    return "".join(
        part.text
        for e in events
        if e.HasField("artifact_update")
        for part in e.artifact_update.artifact.parts
    )


def steps(events: list[StreamResponse]) -> list[dict[str, object]]:
    """The ``pantheon`` metadata of every status update."""
    return [
        MessageToDict(e.status_update.metadata)["pantheon"]
        for e in events
        if e.HasField("status_update")
    ]


async def test_card_names_the_room_its_roster_and_streaming(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    room = await create_room(client, ["alpha", "beta"], mode="orchestrator", description="Plans")
    response = await client.get(f"/a2a/rooms/{room['id']}/.well-known/agent-card.json")
    assert response.status_code == 200, response.text
    card = response.json()
    assert card["name"] == room["name"]
    assert card["description"].startswith("Plans")
    assert [s["id"] for s in card["skills"]] == ["alpha", "beta"]
    assert card["capabilities"]["streaming"] is True
    bindings = {i["protocolBinding"]: i["url"] for i in card["supportedInterfaces"]}
    assert bindings == {
        "JSONRPC": f"http://test/a2a/rooms/{room['id']}",
        "HTTP+JSON": f"http://test/a2a/rooms/{room['id']}",
    }
    assert "securitySchemes" not in card  # local mode: no key


async def test_stream_orchestrator_turn_then_get_and_list(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    script_orchestrator(scripted)
    room = await create_room(client, ["alpha", "beta"], mode="orchestrator")
    sdk = await a2a_for(app, room["id"])
    events = await collect(sdk.send_message(message("plan it")))
    first = events[0].task
    assert first.status.state == TaskState.TASK_STATE_WORKING
    assert first.history[0].parts[0].text == "plan it"
    assert answer_of(events) == "the final answer"
    done = events[-1].status_update
    assert done.status.state == TaskState.TASK_STATE_COMPLETED
    seen = steps(events)
    assert {s.get("agent_key") for s in seen} >= {"alpha", "beta"}
    assert any(s.get("event") == "round_start" and s.get("round") == 1 for s in seen)
    # The recorded turn is the task, on GetTask and ListTasks.
    task = await sdk.get_task(GetTaskRequest(id=first.id))
    assert task.status.state == TaskState.TASK_STATE_COMPLETED
    assert task.context_id == first.context_id
    assert task.artifacts[0].parts[0].text == "the final answer"
    turn = (await client.get(f"/v1/turns/{first.id}")).json()
    assert turn["session_id"] == first.context_id
    listed = await sdk.list_tasks(ListTasksRequest(include_artifacts=True))
    assert [t.id for t in listed.tasks] == [first.id]
    assert listed.tasks[0].artifacts[0].parts[0].text == "the final answer"


async def test_send_without_streaming_and_continue_the_context(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script("hello there", agent="alpha")
    room = await create_room(client, ["alpha"], mode="roundtable")
    sdk = await a2a_for(app, room["id"], streaming=False)
    [first] = await collect(sdk.send_message(message("hi")))
    assert first.task.status.state == TaskState.TASK_STATE_COMPLETED
    assert "hello there" in first.task.artifacts[0].parts[0].text
    context = first.task.context_id
    [second] = await collect(sdk.send_message(message("again", context_id=context)))
    assert second.task.context_id == context
    assert second.task.id != first.task.id
    history = (await client.get(f"/v1/sessions/{context}/turns")).json()
    assert [t["id"] for t in history["items"]] == [first.task.id, second.task.id]
    page = await sdk.list_tasks(ListTasksRequest(context_id=context, page_size=1))
    assert (page.total_size, len(page.tasks), page.tasks[0].id) == (2, 1, second.task.id)
    rest = await sdk.list_tasks(
        ListTasksRequest(context_id=context, page_token=page.next_page_token)
    )
    assert [t.id for t in rest.tasks] == [first.task.id]
    assert rest.next_page_token == ""


async def test_http_json_binding(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script("over rest", agent="alpha")
    room = await create_room(client, ["alpha"], mode="roundtable")
    sdk = await a2a_for(app, room["id"], bindings=("HTTP+JSON",))
    events = await collect(sdk.send_message(message("hi")))
    assert "over rest" in answer_of(events)
    task = await sdk.get_task(GetTaskRequest(id=events[0].task.id))
    assert task.status.state == TaskState.TASK_STATE_COMPLETED


async def test_an_unreachable_manager_still_answers_the_task(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    script_unreachable_manager(scripted)
    room = await create_room(client, ["alpha", "beta"], mode="orchestrator")
    sdk = await a2a_for(app, room["id"])
    events = await collect(sdk.send_message(message("plan it")))
    assert answer_of(events) == FALLBACK_ANSWER
    assert events[-1].status_update.status.state == TaskState.TASK_STATE_COMPLETED
