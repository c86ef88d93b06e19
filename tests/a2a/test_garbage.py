"""Garbage on either binding gets the binding's own error, never a 5xx: bodies that are
not JSON, not objects, of the wrong types; HTTP+JSON query strings and paths that do not
parse; a decision on a task that is not the caller's."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from a2a.types.a2a_pb2 import SubscribeToTaskRequest
from a2a.utils.errors import TaskNotFoundError

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.a2a.conftest import a2a_for, collect, message
from tests.auth.conftest import MakeClients
from tests.factories import create_room

V1 = {"A2A-Version": "1.0"}
JSON = {**V1, "Content-Type": "application/json"}
UNKNOWN = "00000000-0000-4000-8000-000000000000"


def rpc(method: object, params: object) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()


ODD_MESSAGE = {"role": "ROLE_USER", "messageId": "1", "parts": [{"data": [1]}], "taskId": "no"}
RPC_BODIES: list[bytes] = [
    b"[]", b"\xff\xfe{}", b'"text"', b"42", b"null", b"{}",
    b'{"jsonrpc": "1.0", "id": 1, "method": "GetTask"}',
    b'{"jsonrpc": "2.0", "id": {"x": 1}, "method": "GetTask", "params": {"id": "x"}}',
    rpc(5, {}), rpc("GetTask", []), rpc("GetTask", "x"), rpc("GetTask", {"id": "\u00e9\u0000"}),
    rpc("SendMessage", {"message": 3}), rpc("SendMessage", {"message": {"parts": "x"}}),
    rpc("SendMessage", {"message": ODD_MESSAGE}),
    rpc("ListTasks", {"pageSize": -3}), rpc("ListTasks", {"statusTimestampAfter": "soon"}),
    rpc("ListTasks", {"pageToken": "9" * 30}), rpc("ListTasks", {"status": "EXPLODED"}),
    rpc("CancelTask", {"id": 12}), rpc("SubscribeToTask", {"id": "nope"}),
]  # fmt: skip
REST_CALLS: list[tuple[str, str, bytes | None]] = [
    ("POST", "/message:send", b"{not json"),
    ("POST", "/message:send", b"[]"),
    ("POST", "/message:send", b'{"message": "hi"}'),
    ("POST", "/message:send", b'{"message": {"role": "ROLE_USER", "parts": [{"bogus": 1}]}}'),
    ("POST", "/message:stream", b"\xff\xfe"),
    ("GET", "/tasks?pageSize=abc", None),
    ("GET", "/tasks?status=EXPLODED", None),
    ("GET", "/tasks?statusTimestampAfter=yesterday", None),
    ("GET", "/tasks?pageSize=0", None),
    ("GET", f"/tasks/{UNKNOWN}?historyLength=lots", None),
    ("GET", "/tasks/%2e%2e", None),
    ("POST", f"/tasks/{UNKNOWN}:cancel", b"{oops"),
    ("POST", "/tasks/nope:cancel", b"{}"),
    ("GET", "/tasks/nope:subscribe", None),
    ("POST", "/tasks/x/pushNotificationConfigs", b"{}"),
    ("DELETE", "/tasks/x", None),
]


async def test_json_rpc_garbage(client: httpx.AsyncClient) -> None:
    room = await create_room(client, [])
    for body in RPC_BODIES:
        answer = await client.post(f"/a2a/rooms/{room['id']}", content=body, headers=JSON)
        assert answer.status_code < 500, (body, answer.text)
        error: dict[str, Any] = answer.json()["error"]
        assert isinstance(error["code"], int), body
        assert error["code"] < 0, (body, error)  # a JSON-RPC error code
        assert error["message"], body


async def test_http_json_garbage(client: httpx.AsyncClient) -> None:
    room = await create_room(client, [])
    for method, path, body in REST_CALLS:
        url = f"/a2a/rooms/{room['id']}{path}"
        answer = await client.request(method, url, content=body, headers=JSON)
        assert 400 <= answer.status_code < 500, (path, body, answer.text)
        error: dict[str, Any] = answer.json()["error"]
        assert error["code"] == answer.status_code, (path, error)
        assert error["status"], path
        assert error["message"], path


async def test_another_users_task_cannot_be_decided_or_followed(
    make_clients: MakeClients, scripted: ScriptedProvider
) -> None:
    clients = await make_clients()
    room = await create_room(clients.alice, ["alpha"])
    alice = await a2a_for(clients.app, room["id"], clients.keys["alice"], streaming=False)
    [done] = await collect(alice.send_message(message("hi")))
    bobs_room = await create_room(clients.bob, ["beta"])
    bob = await a2a_for(clients.app, bobs_room["id"], clients.keys["bob"])
    with pytest.raises(TaskNotFoundError):
        await collect(bob.send_message(message("approve", task_id=done.task.id)))
    with pytest.raises(TaskNotFoundError):
        await collect(bob.subscribe(SubscribeToTaskRequest(id=done.task.id)))
