"""Invalid requests are 400s in OpenAI's shape naming the problem, before any LLM call and
with nothing persisted; a turn that fails is an error, never an empty answer."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import openai
import pytest
from fastapi import FastAPI

from pantheon.llm.errors import Unavailable
from pantheon.llm.providers.scripted import ScriptedProvider
from tests.facade.conftest import room_model, user
from tests.factories import create_agent, create_session
from tests.waiting import until

URL = "/openai/v1/chat/completions"
HI = [user("hi")]
INVALID: list[tuple[dict[str, Any], str]] = [
    ({"n": 2}, "n=2 is not supported"),
    ({"tools": [{"type": "function", "function": {"name": "f"}}]}, "'tools' is not supported"),
    ({"tool_choice": "required"}, "'tool_choice' is not supported"),
    ({"logprobs": True}, "'logprobs' is not supported"),
    ({"response_format": {"type": "json_object"}}, "'response_format' is not supported"),
    ({"frobnicate": 1}, "unsupported field 'frobnicate'"),
    ({"temperature": 3}, "temperature: Input should be less than or equal to 2"),
    ({"stop": ["a", "b", "c", "d", "e"]}, "stop takes at most 4 sequences"),
    ({"messages": []}, "messages: List should have at least 1 item"),
    ({"messages": "hi"}, "messages: Input should be a valid list"),
    ({"messages": [{"role": "wizard", "content": "x"}]}, "messages.0.role"),
    ({"messages": [{"role": "system", "content": "x"}]}, "the last message"),
    ({"messages": [user("a"), {"role": "assistant", "content": "b"}]}, "the last message"),
    ({"messages": [user("  ")]}, "the last user message is empty"),
    (
        {"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}]},
        "messages[0].content: a part of type 'image_url' is not supported",
    ),
    ({"messages": [{"role": "tool", "content": "x"}, *HI]}, "messages[0]: role 'tool'"),
    (
        {"messages": [{"role": "assistant", "tool_calls": [{"id": "1"}]}, *HI]},
        "messages[0].tool_calls",
    ),
    ({"model": ""}, "model: String should have at least 1 character"),
]


@pytest.mark.parametrize(("change", "named"), INVALID)
async def test_invalid_requests_are_400_in_openai_shape(
    client: httpx.AsyncClient, scripted: ScriptedProvider, change: dict[str, Any], named: str
) -> None:
    model = await room_model(client, ["alpha"], "roundtable")
    response = await client.post(URL, json={"model": model, "messages": HI, **change})
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert error["type"] == "invalid_request_error"
    assert error["code"] == "invalid_request"
    assert named in error["message"]
    assert scripted.requests == []
    assert (await client.get(f"/v1/rooms/{model[5:]}/sessions")).json()["total"] == 0


async def test_sdk_raises_bad_request_for_several_choices(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI
) -> None:
    model = await room_model(client, ["alpha"], "roundtable")
    with pytest.raises(openai.BadRequestError) as raised:
        await oai.chat.completions.create(model=model, messages=HI, n=3)
    assert raised.value.status_code == 400
    assert "a turn gives one answer" in raised.value.message


async def test_malformed_json_is_400_and_native_errors_keep_their_shape(
    client: httpx.AsyncClient,
) -> None:
    response = await client.post(
        URL, content=b"{not json", headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 400
    assert response.json()["error"]["message"].startswith("invalid request body:")
    native = await client.post("/v1/rooms", json={"name": 5})
    assert native.status_code == 422
    assert "detail" in native.json()
    assert "error" not in native.json()


async def test_off_values_of_unsupported_fields_are_accepted(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI
) -> None:
    model = await room_model(client, ["alpha"], "roundtable")
    answer = await oai.chat.completions.create(
        model=model, messages=HI, n=1, tools=[], logprobs=False, user="u-1", seed=1,
        response_format={"type": "text"}, metadata={"source": "test"}, top_p=0.9,
    )  # fmt: skip
    assert answer.choices[0].message.content == "**Alpha**\n\nalpha: hi"


async def test_unknown_endpoints_are_404_in_openai_shape(client: httpx.AsyncClient) -> None:
    # GET of the completions URL is a 405 naming POST (tests/api/test_malformed_requests.py).
    for method, path in (("POST", "/openai/v1/embeddings"), ("GET", "/openai/v1/files")):
        response = await client.request(method, path)
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "unknown_endpoint"
        assert f"{method} {path} is not supported" in response.json()["error"]["message"]


async def test_a_failed_turn_is_an_error_json_and_streamed(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI, scripted: ScriptedProvider
) -> None:
    await create_agent(client, "solo")
    scripted.script(error=Unavailable("down"), agent="solo")
    with pytest.raises(openai.InternalServerError) as raised:
        await oai.chat.completions.create(model="agent-solo", messages=HI)
    assert raised.value.status_code == 502
    assert raised.value.code == "turn_failed"
    assert "failed: Solo failed:" in raised.value.message
    stream = await oai.chat.completions.create(model="agent-solo", messages=HI, stream=True)
    with pytest.raises(openai.APIError) as streamed:
        async for _chunk in stream:
            pass
    assert "failed: Solo failed:" in streamed.value.message
    assert streamed.value.code == "turn_failed"


async def test_a_failing_agent_in_a_roundtable_is_noted_in_the_answer(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI, scripted: ScriptedProvider
) -> None:
    model = await room_model(client, ["alpha", "beta"], "roundtable")
    scripted.script(error=Unavailable("down"), agent="alpha")
    answer = await oai.chat.completions.create(model=model, messages=HI)
    content = answer.choices[0].message.content or ""
    assert content.startswith("**Alpha**\n\n*(Alpha failed: ")
    assert content.endswith("**Beta**\n\nbeta: hi")


async def test_busy_session_is_409(
    app: FastAPI, client: httpx.AsyncClient, oai: openai.AsyncOpenAI, scripted: ScriptedProvider
) -> None:
    model = await room_model(client, ["alpha"], "roundtable")
    session = await create_session(client, model.removeprefix("room-"))
    # Slow enough to outlast the second request on a loaded machine; cancelled below.
    scripted.script("slow", agent="alpha", delay_s=60)
    url = f"/v1/sessions/{session['id']}/turns"
    native = asyncio.create_task(client.post(url, json={"message": "first"}))
    await until(app.state.services.live_turns.running)
    with pytest.raises(openai.ConflictError) as raised:
        await oai.chat.completions.create(
            model=model, messages=HI, extra_headers={"X-Pantheon-Session": session["id"]}
        )
    assert raised.value.status_code == 409
    assert raised.value.code == "session_busy"
    assert "already has a running turn" in raised.value.message
    (running,) = app.state.services.live_turns.running()
    assert (await client.post(f"/v1/turns/{running.turn_id}/cancel")).status_code == 200
    assert (await native).status_code == 201


@pytest.mark.parametrize(
    ("change", "param"),
    [
        ({"n": 2}, "n"),
        ({"frobnicate": 1}, "frobnicate"),
        ({"temperature": 3}, "temperature"),
        ({"messages": [{"role": "wizard", "content": "x"}]}, "messages.0.role"),
        ({"messages": [{"role": "tool", "content": "x"}, *HI]}, "messages[0]"),
        ({"messages": [{"role": "system", "content": "x"}]}, "messages"),
    ],
)
async def test_invalid_requests_name_the_field_in_param(
    client: httpx.AsyncClient, change: dict[str, Any], param: str
) -> None:
    response = await client.post(URL, json={"model": "agent-x", "messages": HI, **change})
    assert response.status_code == 400
    assert response.json()["error"]["param"] == param
