"""What the ``/mcp`` door answers before the SDK sees a request (door.py): padded header
values are accepted, request ids that are no string or integer are invalid requests, and
in ``local`` mode only an exactly loopback ``Host`` and ``Origin`` get through."""

from __future__ import annotations

import asyncio
import json
from typing import Any
from urllib.parse import urlsplit

import pytest
from fastapi import FastAPI
from mcp_types import CLIENT_CAPABILITIES_META_KEY, PROTOCOL_VERSION_META_KEY

from tests.factories import create_room
from tests.mcp_server.conftest import http_for
from tests.turns_api.conftest import Serve

# The door answers before any database work: one backend is enough.
pytestmark = pytest.mark.parametrize("backend", ["sqlite"], indirect=True)

MODERN = "2026-07-28"
HANDSHAKE = "2025-11-25"
JSON_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
META = {PROTOCOL_VERSION_META_KEY: MODERN, CLIENT_CAPABILITIES_META_KEY: {}}


async def _raw_post(url: str, headers: list[tuple[str, str]], body: bytes) -> str:
    """POST ``/mcp`` over a plain socket: HTTP clients refuse to send padded values."""
    parts = urlsplit(url)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    lines = [f"{name}:{value}" for name, value in headers]
    head = ["POST /mcp HTTP/1.1", *lines, f"Content-Length: {len(body)}", "Connection: close"]
    try:
        writer.write("\r\n".join([*head, "", ""]).encode() + body)
        await writer.drain()
        return (await reader.read()).decode()
    finally:
        writer.close()


async def test_padded_routing_header_values_are_accepted(serve: Serve) -> None:
    """RFC 9110 §5.5: whitespace around a field value is no part of it, so `Mcp-Name:
    room_team ` names `room_team` (the SDK alone answers "header mismatch", -32020)."""
    call = {"name": "room_team", "arguments": {"message": "hi"}, "_meta": META}
    body = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": call})
    async with serve() as live:
        await create_room(live.http, ["alpha"], name="Team")
        headers = [
            ("Host", "127.0.0.1"),
            *JSON_HEADERS.items(),
            ("MCP-Protocol-Version", f" {MODERN}\t"),
            ("Mcp-Method", "\ttools/call "),
            ("Mcp-Name", "  room_team  "),
        ]
        answer = await _raw_post(live.url, headers, body.encode())

    assert answer.startswith("HTTP/1.1 200"), answer
    assert "header does not match" not in answer
    assert '"isError":false' in answer
    assert "alpha: hi" in answer


def _list(raw_id: str) -> bytes:
    params = json.dumps({"_meta": META})
    return (
        f'{{"jsonrpc": "2.0", "id": {raw_id}, "method": "tools/list", "params": {params}}}'.encode()
    )


@pytest.mark.parametrize("version", [HANDSHAKE, MODERN])
@pytest.mark.parametrize("raw_id", ["NaN", "{}", '{"a": 1}', "1.5", "1.0", "true", "null", "[1]"])
async def test_a_request_id_that_is_no_string_or_integer_is_an_invalid_request(
    app: FastAPI, version: str, raw_id: str
) -> None:
    """Not a notification dropped with 202: the JSON-RPC error, id null."""
    headers = {**JSON_HEADERS, "MCP-Protocol-Version": version, "Mcp-Method": "tools/list"}
    async with http_for(app) as http:
        response = await http.post("/mcp", content=_list(raw_id), headers=headers)

    assert response.status_code == 400, response.text
    body = response.json()
    assert body["id"] is None
    assert body["error"]["code"] == -32600


def _answer(text: str) -> Any:
    """The JSON-RPC answer, sent as plain JSON or as the data of one SSE event."""
    frames = [line for line in text.splitlines() if line.startswith("data: ")]
    return json.loads(frames[0].removeprefix("data: ") if frames else text)


@pytest.mark.parametrize("version", [HANDSHAKE, MODERN])
@pytest.mark.parametrize("raw_id", ['"abc"', "0", "-3"])
async def test_string_and_integer_ids_are_answered(app: FastAPI, version: str, raw_id: str) -> None:
    headers = {**JSON_HEADERS, "MCP-Protocol-Version": version, "Mcp-Method": "tools/list"}
    async with http_for(app) as http:
        response = await http.post("/mcp", content=_list(raw_id), headers=headers)

    assert response.status_code == 200, response.text
    answer = _answer(response.text)
    assert answer["id"] == json.loads(raw_id)
    assert answer["result"]["tools"] == []


async def test_a_notification_is_still_acknowledged(app: FastAPI) -> None:
    notification = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    headers = {**JSON_HEADERS, "MCP-Protocol-Version": HANDSHAKE}
    async with http_for(app) as http:
        response = await http.post("/mcp", json=notification, headers=headers)

    assert response.status_code == 202


PING: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


@pytest.mark.parametrize(
    "host",
    [
        "localhost:80@evil.example",
        "localhost@evil.example",
        "127.0.0.1:8000@evil.example:8000",
        "localhost.evil.example",
        "localhost:8000/evil",
        "localhost:8000#evil",
        "localhost:http",
        "127.0.0.1:99999",
        "[::1",
        "",
    ],
)
async def test_local_mode_refuses_a_host_that_only_starts_like_loopback(
    app: FastAPI, host: str
) -> None:
    headers = {**JSON_HEADERS, "MCP-Protocol-Version": HANDSHAKE, "Host": host}
    async with http_for(app) as http:
        response = await http.post("/mcp", json=PING, headers=headers)

    assert response.status_code == 421, response.text
    assert "is not a loopback host" in response.json()["error"]["message"]


@pytest.mark.parametrize(
    "origin",
    [
        "http://localhost:80@evil.example",
        "http://localhost.evil.example",
        "http://localhost:3000/path",
        "ftp://localhost",
        "null",
    ],
)
async def test_local_mode_refuses_an_origin_that_only_starts_like_loopback(
    app: FastAPI, origin: str
) -> None:
    headers = {**JSON_HEADERS, "MCP-Protocol-Version": HANDSHAKE, "Origin": origin}
    async with http_for(app) as http:
        response = await http.post("/mcp", json=PING, headers=headers)

    assert response.status_code == 403, response.text
    assert "is not a loopback origin" in response.json()["error"]["message"]


@pytest.mark.parametrize(
    ("host", "origin"),
    [
        ("localhost", "http://localhost"),
        ("LOCALHOST:8000", "http://localhost:3000"),
        ("127.0.0.1:8000", "https://127.0.0.1:8443"),
        ("[::1]:8000", "http://[::1]:8000"),
    ],
)
async def test_local_mode_answers_loopback_hosts_and_origins(
    app: FastAPI, host: str, origin: str
) -> None:
    headers = {**JSON_HEADERS, "MCP-Protocol-Version": HANDSHAKE, "Host": host, "Origin": origin}
    async with http_for(app) as http:
        response = await http.post("/mcp", json=PING, headers=headers)

    assert response.status_code == 200, response.text
