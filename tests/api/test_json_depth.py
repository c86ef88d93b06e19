"""A JSON body nested past ``limits.max_json_depth`` is refused where bodies are read, before
any parser or validator recurses into it: 422 natively, 400 in OpenAI's shape on the facade,
each protocol door's shape on the others. Nested 600 levels it passed ``json.loads`` and then
ended in a RecursionError (a 500)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI

from pantheon.json_depth import JsonDepth, is_json
from tests.factories import create_room
from tests.mcp_server.conftest import http_for

JSON = {"content-type": "application/json"}
NAMED = "the JSON body nests deeper than 64 levels of arrays and objects"


def nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


@pytest.mark.parametrize(
    ("path", "template"),
    [
        ("/v1/rooms", b'{"name": "x", "description": %s}'),
        ("/v1/agents", b'{"key": "k", "name": "x", "role_prompt": %s}'),
        ("/v1/evals/datasets", b'{"name": "x", "cases": %s}'),
        ("/v1/rooms", b"%s"),
    ],
)
async def test_a_deep_body_is_422_naming_the_limit(
    client: httpx.AsyncClient, path: str, template: bytes
) -> None:
    response = await client.post(path, content=template % nested(600), headers=JSON)
    assert response.status_code == 422, response.text[:300]
    assert response.json() == {
        "detail": f"{NAMED} (PANTHEON_LIMITS__MAX_JSON_DEPTH)",
        "code": "unprocessable",
    }


async def test_a_deep_body_sent_in_chunks_is_refused_without_a_declared_length(
    client: httpx.AsyncClient,
) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        yield b'{"name": "x", "description": '
        for _ in range(6):
            yield b"[" * 100
        yield b"]" * 600 + b"}"

    response = await client.post("/v1/rooms", content=chunks(), headers=JSON)
    assert response.status_code == 422
    assert NAMED in response.json()["detail"]


async def test_brackets_in_strings_and_a_body_at_the_limit_are_not_refused(
    client: httpx.AsyncClient,
) -> None:
    text = b'"[[[{{{ \\" [[[ \\\\ ' + b"[" * 600 + b'"'
    body = b'{"name": "x", "description": %s}' % text
    room = await client.post("/v1/rooms", content=body, headers=JSON)
    assert room.status_code == 201, room.text
    assert room.json()["description"].startswith('[[[{{{ " [[[ \\ [[[')
    at_limit = b'{"name": "x", "description": %s}' % nested(63)  # 64 with the outer object
    shallow = await client.post("/v1/rooms", content=at_limit, headers=JSON)
    assert shallow.status_code == 422
    assert "description" in str(shallow.json()["detail"])  # the validator saw it: not a string


@pytest.mark.parametrize(
    ("path", "template"),
    [
        ("/openai/v1/responses", b'{"model": "room-x", "input": %s}'),
        ("/openai/v1/chat/completions", b'{"model": "room-x", "messages": %s}'),
    ],
)
async def test_the_facade_refuses_a_deep_body_with_400_in_openai_shape(
    client: httpx.AsyncClient, path: str, template: bytes
) -> None:
    response = await client.post(path, content=template % nested(900), headers=JSON)
    assert response.status_code == 400, response.text[:300]
    error = response.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert error["message"].startswith(NAMED)


async def test_the_protocol_doors_answer_a_deep_body_in_their_shapes(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    room = await create_room(client)
    a2a = await client.post(
        f"/a2a/rooms/{room['id']}", content=nested(600), headers={**JSON, "A2A-Version": "1.0"}
    )
    assert a2a.status_code == 200  # JSON-RPC's parse error, in a JSON-RPC answer
    assert a2a.json()["error"]["code"] == -32700
    assert a2a.json()["error"]["message"].startswith(NAMED)
    rest = await client.post(
        f"/a2a/rooms/{room['id']}/message:send",
        content=nested(600),
        headers={**JSON, "A2A-Version": "1.0"},
    )
    assert rest.status_code == 400  # the A2A spec's status for a refused body
    assert rest.json()["error"]["status"] == "INVALID_ARGUMENT"
    accept = {**JSON, "Accept": "application/json, text/event-stream"}
    async with http_for(app) as http:
        mcp = await http.post("/mcp", content=nested(600), headers=accept)
    assert mcp.status_code == 422
    assert mcp.json()["jsonrpc"] == "2.0"
    assert mcp.json()["error"]["message"].startswith(NAMED)


def test_depth_is_counted_across_chunks_outside_strings() -> None:
    depth = JsonDepth()
    for chunk in (b'{"a": "x\\', b'"[[[", "b": [[', b"1]], ", b'"\\\\', b'"', b", [[[[]]]]}"):
        depth.feed(chunk)
    assert (depth.deepest, depth.depth) == (5, 0)
    assert [is_json(t) for t in (None, "application/json; charset=utf-8", "application/vnd.x+json",
                                 "multipart/form-data; boundary=x", "text/plain")] == [
        True, True, True, False, False]  # fmt: skip
