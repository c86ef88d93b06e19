"""Every response object and stream event the Responses API sends conforms to the Open
Responses specification (``tests/facade/open_responses.py``): plain, streamed, with
reasoning and function calls, failed, queued, running, cancelled and retrieved.

The requests are the shapes the specification's compliance suite sends (message items
with ``type: "message"``, a system message, earlier turns, ``previous_response_id``);
its streams are read with its strict LF parser (``tests.sse.lf_events``)."""

from __future__ import annotations

import json
import uuid
from datetime import datetime
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import delete

from pantheon.db.models import ResponseRequest
from pantheon.db.uow import unit_of_work
from pantheon.llm.errors import Unavailable
from pantheon.llm.providers.scripted import ScriptedProvider, ScriptedReply, tool_call
from tests.facade.conftest import room_model
from tests.facade.open_responses import event_problems, response_problems
from tests.factories import create_agent
from tests.scripted_turns import script_orchestrator
from tests.sse import lf_events

URL = "/openai/v1/responses"


def said(role: str, text: str) -> dict[str, Any]:
    return {"type": "message", "role": role, "content": text}


async def create(client: httpx.AsyncClient, **body: Any) -> dict[str, Any]:
    """A response, checked against the specification; it must have answered."""
    answered = await client.post(URL, json=body)
    assert answered.status_code == 200, answered.text
    response: dict[str, Any] = answered.json()
    assert response_problems(response) == []
    return response


async def streamed(client: httpx.AsyncClient, **body: Any) -> list[dict[str, Any]]:
    """A streamed response's events, each checked against the specification."""
    answered = await client.post(URL, json={**body, "stream": True})
    assert answered.status_code == 200, answered.text
    events = [json.loads(data) for data in lf_events(answered.content)]
    assert [p for event in events for p in event_problems(event)] == []
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    return events


async def test_a_plain_response_carries_every_field_the_specification_requires(
    client: httpx.AsyncClient,
) -> None:
    await create_agent(client, "solo")
    response = await create(client, model="agent-solo", input=[said("user", "hello")])
    assert response["status"] == "completed"
    assert response["completed_at"] >= response["created_at"]
    assert (response["truncation"], response["service_tier"]) == ("auto", "default")
    assert (response["temperature"], response["top_p"]) == (1.0, 1.0)
    assert response["background"] is False
    message = response["output"][-1]
    assert message["content"][0]["text"] == "solo: hello"


async def test_system_messages_earlier_turns_and_a_previous_response_are_answered(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    await create_agent(client, "solo")
    history = [
        said("system", "Speak like a pirate."),
        said("user", "My name is Alice."),
        said("assistant", "Hello Alice!"),
        said("user", "What is my name?"),
    ]
    first = await create(client, model="agent-solo", input=history)
    seen = scripted.calls(agent="solo")[-1].request.messages
    assert "Speak like a pirate." in seen[0].content
    assert [m.role for m in seen[1:]] == ["user", "assistant", "user"]
    assert "Hello Alice!" in seen[2].content
    assert seen[-1].content == "What is my name?"
    second = await create(
        client, model="agent-solo", input="And again?", previous_response_id=first["id"]
    )
    assert (first["status"], second["status"]) == ("completed", "completed")
    assert second["previous_response_id"] == first["id"]


async def test_a_streamed_orchestrator_response_conforms_event_by_event(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    script_orchestrator(scripted)
    model = await room_model(client, ["alpha", "beta"], "orchestrator")
    events = await streamed(client, model=model, input=[said("user", "Count from 1 to 5.")])
    kinds = {e["type"] for e in events}
    assert {"response.reasoning_summary_text.delta", "response.output_text.delta"} <= kinds
    final = events[-1]
    assert final["type"] == "response.completed"
    assert final["response"]["completed_at"] is not None
    assert events[0]["response"]["completed_at"] is None
    assert [item["type"] for item in final["response"]["output"]] == ["reasoning", "message"]


async def test_a_function_call_streams_its_arguments_and_conforms(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    def solo(request: object) -> ScriptedReply | str:
        if any(m.role == "tool" for m in getattr(request, "messages", ())):
            return "It is 391."
        return ScriptedReply(tool_calls=(tool_call("calculator", {"expression": "17*23"}),))

    scripted.script(solo, agent="solo")
    await create_agent(client, "solo", tools=["calculator"])
    events = await streamed(client, model="agent-solo", input="17*23?")
    kinds = [e["type"] for e in events]
    assert "response.function_call_arguments.delta" in kinds
    assert "response.function_call_arguments.done" in kinds
    done = [e["item"] for e in events if e["type"] == "response.output_item.done"]
    assert "function_call" in [item["type"] for item in done]


async def test_a_failed_response_conforms_and_says_why(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    await create_agent(client, "solo")
    scripted.script(error=Unavailable("down"), agent="solo")
    response = await create(client, model="agent-solo", input="hello")
    assert response["status"] == "failed"
    assert response["completed_at"] is None
    assert response["error"]["code"] == "turn_failed"
    events = await streamed(client, model="agent-solo", input="hello")
    assert events[-1]["type"] == "response.failed"


@pytest.mark.parametrize("background", [True, None])
async def test_queued_running_cancelled_and_retrieved_responses_conform(
    client: httpx.AsyncClient, app: FastAPI, scripted: ScriptedProvider, background: bool | None
) -> None:
    """``background`` None: a response made before its request fields were kept."""
    scripted.script("slow " * 400, agent="solo", chunk_delay_s=0.01)
    await create_agent(client, "solo")
    queued = await create(client, model="agent-solo", input="go", background=True)
    if background is None:
        await _forget_request_fields(app, queued["id"])
    path = f"{URL}/{queued['id']}"
    running = (await client.get(path)).json()
    cancelled = (await client.post(f"{path}/cancel")).json()
    retrieved = (await client.get(path)).json()
    for response in (running, cancelled, retrieved):
        assert response_problems(response) == []
    assert (queued["status"], running["status"]) == ("queued", "in_progress")
    assert (cancelled["status"], retrieved["status"]) == ("cancelled", "cancelled")
    assert retrieved["incomplete_details"] == {"reason": "cancelled"}
    assert retrieved["background"] is bool(background)
    replay = await client.get(f"{path}?stream=true")
    events = [json.loads(data) for data in lf_events(replay.content)]
    assert [p for event in events for p in event_problems(event)] == []
    assert events[-1]["type"] == "response.incomplete"


async def test_a_retrieved_response_says_when_it_completed(client: httpx.AsyncClient) -> None:
    await create_agent(client, "solo")
    answer = await create(client, model="agent-solo", input="hello")
    turn = (await client.get(f"/v1/turns/{answer['id'].removeprefix('resp_')}")).json()
    again = (await client.get(f"{URL}/{answer['id']}")).json()
    assert response_problems(again) == []
    assert again["completed_at"] == int(datetime.fromisoformat(turn["finished_at"]).timestamp())
    assert answer["created_at"] <= again["completed_at"]


async def _forget_request_fields(app: FastAPI, resp_id: str) -> None:
    """Delete the response's kept request fields, as for a response made before migration
    0017 kept them: its GET answers from its session, background unknown."""
    turn_id = uuid.UUID(resp_id.removeprefix("resp_"))
    async with unit_of_work(app.state.services.db, write=True) as session:
        await session.execute(delete(ResponseRequest).where(ResponseRequest.turn_id == turn_id))
