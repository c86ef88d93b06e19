"""Every SSE endpoint ends its lines with a plain LF: the native turn stream (live and
replayed), chat completions, the Responses API (live and resumed) and AG-UI.

CRLF is legal SSE, but parsers that split on "\\n" and end an event at an empty line read
nothing from it (the Open Responses compliance suite's parser found no event at all in
Pantheon's streams). The bytes are checked as they come, and read back with such a
parser (``tests.sse.lf_events``), which must find every event."""

from __future__ import annotations

import json
import uuid
from typing import Any

import httpx

from tests.factories import create_agent, create_room, create_session
from tests.sse import lf_events


async def _turn(client: httpx.AsyncClient) -> tuple[list[str], list[str]]:
    room = await create_room(client, ["solo"])
    session = await create_session(client, room["id"])
    headers = {"Accept": "text/event-stream"}
    live = await client.post(
        f"/v1/sessions/{session['id']}/turns", json={"message": "hello"}, headers=headers
    )
    assert live.status_code == 200, live.text
    events = lf_events(live.content)
    turn_id = json.loads(events[0])["turn_id"]
    replay = await client.get(f"/v1/turns/{turn_id}/events")
    return events, lf_events(replay.content)


async def test_the_native_turn_stream_live_and_replayed(client: httpx.AsyncClient) -> None:
    live, replay = await _turn(client)
    assert json.loads(live[-1])["type"] == "turn_completed"
    assert replay == live


async def test_a_chat_completion_stream(client: httpx.AsyncClient) -> None:
    await create_agent(client, "solo")
    body = {"model": "agent-solo", "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    response = await client.post("/openai/v1/chat/completions", json=body)
    assert response.status_code == 200, response.text
    events = lf_events(response.content)
    assert events[-1] == "[DONE]"
    chunks: list[dict[str, Any]] = [json.loads(e) for e in events[:-1]]
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])
    assert text == "solo: hi"


async def test_a_responses_stream_live_and_resumed(client: httpx.AsyncClient) -> None:
    await create_agent(client, "solo")
    body = {"model": "agent-solo", "input": "hi", "stream": True}
    response = await client.post("/openai/v1/responses", json=body)
    assert response.status_code == 200, response.text
    events = [json.loads(e) for e in lf_events(response.content)]
    assert events[0]["type"] == "response.created"
    assert events[-1]["type"] == "response.completed"
    resp_id = events[0]["response"]["id"]
    resumed = await client.get(f"/openai/v1/responses/{resp_id}?stream=true&starting_after=1")
    assert [json.loads(e) for e in lf_events(resumed.content)] == events[2:]


async def test_an_agui_run(client: httpx.AsyncClient) -> None:
    room = await create_room(client, ["solo"])
    body = {
        "threadId": str(uuid.uuid4()),
        "runId": str(uuid.uuid4()),
        "messages": [{"id": "u1", "role": "user", "content": "hi"}],
        "state": {},
        "tools": [],
        "context": [],
    }
    response = await client.post(
        f"/agui/rooms/{room['id']}", json=body, headers={"Accept": "text/event-stream"}
    )
    assert response.status_code == 200, response.text
    kinds = [json.loads(e)["type"] for e in lf_events(response.content)]
    assert kinds[0] == "RUN_STARTED"
    assert kinds[-1] == "RUN_FINISHED"
