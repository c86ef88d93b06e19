"""Bad Responses API requests are errors in OpenAI's shape naming the problem, never a 5xx,
with no LLM call and no session left behind; another user's responses do not exist."""

from __future__ import annotations

from typing import Any

import httpx
import openai
import pytest

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.auth.conftest import MakeClients
from tests.facade.conftest import openai_for
from tests.factories import create_agent

URL = "/openai/v1/responses"
INVALID: list[tuple[dict[str, Any], str]] = [
    ({"tools": [{"type": "function", "name": "f"}]}, "'tools' is not supported"),
    ({"tool_choice": "required"}, "'tool_choice' is not supported"),
    ({"text": {"format": {"type": "json_object"}}}, "'text' is not supported"),
    ({"conversation": "conv_1"}, "use previous_response_id"),
    ({"frobnicate": 1}, "unsupported field 'frobnicate'"),
    ({"temperature": 3}, "temperature: Input should be less than or equal to 2"),
    ({"background": True, "store": False}, "background responses must be stored"),
    ({"input": []}, "input: the last message"),
    ({"input": [{"role": "assistant", "content": "b"}]}, "input: the last message"),
    ({"input": "   "}, "the last user message is empty"),
    ({"input": [{"role": "wizard", "content": "x"}]}, "input[0].role must be one of"),
    (
        {"input": [{"type": "function_call_output", "call_id": "c", "output": "1"}]},
        "input[0]: an item of type 'function_call_output' is not supported",
    ),
    (
        {"input": [{"role": "user", "content": [{"type": "input_image", "image_url": "x"}]}]},
        "input[0].content: a part of type 'input_image' is not supported",
    ),
    ({"input": 7}, "input"),
    ({"model": ""}, "model"),
]


@pytest.mark.parametrize(("fields", "names"), INVALID)
async def test_an_invalid_request_is_a_400_naming_the_problem(
    client: httpx.AsyncClient, scripted: ScriptedProvider, fields: dict[str, Any], names: str
) -> None:
    await create_agent(client, "solo")
    before = (await client.get("/v1/agents")).json()["items"][0]
    response = await client.post(URL, json={"model": "agent-solo", "input": "hi", **fields})
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert names in error["message"]
    assert error["type"] == "invalid_request_error"
    assert scripted.requests == []
    sessions = await client.get(f"/v1/agents/{before['id']}/sessions")
    assert sessions.json()["total"] == 0


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", URL, {"model": "agent-nobody", "input": "hi"}),
        ("POST", URL, {"model": "agent-solo", "input": "hi", "previous_response_id": "resp_x"}),
        ("GET", f"{URL}/resp_00000000-0000-0000-0000-000000000000", None),
        ("GET", f"{URL}/chatcmpl-1", None),
        ("POST", f"{URL}/resp_00000000-0000-0000-0000-000000000000/cancel", None),
    ],
)
async def test_unknown_models_and_responses_are_404s(
    client: httpx.AsyncClient, method: str, path: str, body: dict[str, Any] | None
) -> None:
    await create_agent(client, "solo")
    response = await client.request(method, path, json=body)
    assert response.status_code == 404, response.text
    assert response.json()["error"]["type"] == "invalid_request_error"


async def test_malformed_bodies_and_queries_are_400s(client: httpx.AsyncClient) -> None:
    garbage = await client.post(
        URL, content=b"{not json", headers={"content-type": "application/json"}
    )
    assert garbage.status_code == 400
    assert "error" in garbage.json()
    await create_agent(client, "solo")
    done = await client.post(URL, json={"model": "agent-solo", "input": "hi"})
    bad_cursor = await client.get(f"{URL}/{done.json()['id']}?stream=true&starting_after=-5")
    assert bad_cursor.status_code == 400
    assert "starting_after" in bad_cursor.json()["error"]["message"]


async def test_another_users_response_does_not_exist(
    make_clients: MakeClients, scripted: ScriptedProvider
) -> None:
    users = await make_clients()
    await create_agent(users.alice, "solo")
    alice, bob = (openai_for(users.app, users.keys[n]) for n in ("alice", "bob"))
    mine = await alice.responses.create(model="agent-solo", input="hi")
    with pytest.raises(openai.NotFoundError):
        await bob.responses.retrieve(mine.id)
    with pytest.raises(openai.NotFoundError):
        await bob.responses.cancel(mine.id)
    with pytest.raises(openai.NotFoundError):
        await bob.responses.create(model="agent-solo", input="x", previous_response_id=mine.id)
    anon = await users.anon.post(URL, json={"model": "agent-solo", "input": "hi"})
    assert anon.status_code == 401
    assert anon.json()["error"]["code"] == "invalid_api_key"
    await alice.close()
    await bob.close()


async def test_continuing_a_response_in_another_model_is_a_400(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI
) -> None:
    await create_agent(client, "solo")
    await create_agent(client, "other")
    first = await oai.responses.create(model="agent-solo", input="hi")
    with pytest.raises(openai.BadRequestError, match="belongs to agent"):
        await oai.responses.create(model="agent-other", input="x", previous_response_id=first.id)
