"""Bad input gets A2A's error shapes, never a 5xx: unknown rooms and paths, malformed
JSON-RPC, unsupported parts, foreign contexts; in ``keys`` mode a missing key and
another user's room or task."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from a2a.types.a2a_pb2 import (
    CancelTaskRequest,
    GetTaskRequest,
    ListTasksRequest,
    Part,
    SendMessageConfiguration,
)
from a2a.utils.errors import (
    ContentTypeNotSupportedError,
    InvalidParamsError,
    InvalidRequestError,
    TaskNotFoundError,
)
from fastapi import FastAPI

from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.settings import Settings
from tests.a2a.conftest import a2a_for, collect, message
from tests.auth.conftest import MakeClients
from tests.factories import create_room

V1 = {"A2A-Version": "1.0"}
UNKNOWN = "00000000-0000-4000-8000-000000000000"


def rpc(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 7, "method": method, "params": params}


async def test_unknown_room_is_not_found_in_each_binding(client: httpx.AsyncClient) -> None:
    card = await client.get(f"/a2a/rooms/{UNKNOWN}/.well-known/agent-card.json")
    assert card.status_code == 404
    assert card.json()["error"]["status"] == "NOT_FOUND"
    assert UNKNOWN in card.json()["error"]["message"]
    call = await client.post(f"/a2a/rooms/{UNKNOWN}", json=rpc("GetTask", {"id": "x"}), headers=V1)
    assert call.status_code == 404
    assert call.json()["error"]["code"] == -32001
    rest = await client.get(f"/a2a/rooms/not-a-uuid/tasks/{UNKNOWN}", headers=V1)
    assert (rest.status_code, rest.json()["error"]["status"]) == (404, "NOT_FOUND")
    nowhere = await client.get("/a2a/nowhere")
    assert (nowhere.status_code, nowhere.json()["error"]["code"]) == (404, 404)


async def test_malformed_json_rpc(client: httpx.AsyncClient) -> None:
    room = await create_room(client, ["alpha"])
    url = f"/a2a/rooms/{room['id']}"
    broken = await client.post(url, content=b"{not json", headers=V1)
    assert (broken.status_code, broken.json()["error"]["code"]) == (200, -32700)
    unknown = await client.post(url, json=rpc("Teleport", {}), headers=V1)
    assert unknown.json()["error"]["code"] == -32601
    bad_params = await client.post(url, json=rpc("GetTask", {"historyLength": "many"}), headers=V1)
    assert bad_params.json()["error"]["code"] == -32602
    no_version = await client.post(url, json=rpc("GetTask", {"id": UNKNOWN}))
    assert no_version.json()["error"]["code"] == -32009  # A2A-Version 1.0 is required
    missing = await client.post(url, json=rpc("GetTask", {"id": UNKNOWN}), headers=V1)
    assert missing.json()["error"]["code"] == -32001


async def test_bad_messages_and_lookups(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    room = await create_room(client, ["alpha"])
    other = await create_room(client, ["beta"])
    sdk = await a2a_for(app, room["id"])
    with pytest.raises(TaskNotFoundError):
        await sdk.get_task(GetTaskRequest(id=UNKNOWN))
    with pytest.raises(TaskNotFoundError):
        await sdk.cancel_task(CancelTaskRequest(id=UNKNOWN))
    with pytest.raises(InvalidParamsError, match="pageToken"):
        await sdk.list_tasks(ListTasksRequest(page_token="abc"))
    with pytest.raises(InvalidParamsError, match="pageSize"):
        await sdk.list_tasks(ListTasksRequest(page_size=1000))
    data = message("a file")
    data.message.parts.append(Part(url="https://example.com/x.pdf"))
    with pytest.raises(ContentTypeNotSupportedError, match="'url'"):
        await collect(sdk.send_message(data))
    with pytest.raises(InvalidParamsError, match="no text"):
        await collect(sdk.send_message(message("   ")))
    with pytest.raises(TaskNotFoundError):
        await collect(sdk.send_message(message("hi", task_id=UNKNOWN)))
    # A task of another room is not found here; its context is no session of this room.
    elsewhere = await a2a_for(app, other["id"], streaming=False)
    [done] = await collect(elsewhere.send_message(message("hi")))
    with pytest.raises(TaskNotFoundError):
        await sdk.get_task(GetTaskRequest(id=done.task.id))
    with pytest.raises(InvalidParamsError, match="no session of this room"):
        await collect(sdk.send_message(message("hi", context_id=done.task.context_id)))
    assert len(scripted.requests) == 1  # nothing refused reached a model


async def test_a_busy_context_is_refused(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script("slow", agent="alpha", delay_s=30.0)
    room = await create_room(client, ["alpha"])
    sdk = await a2a_for(app, room["id"], streaming=False)
    request = message("first")
    request.configuration.CopyFrom(SendMessageConfiguration(return_immediately=True))
    [first] = await collect(sdk.send_message(request))
    with pytest.raises(InvalidRequestError, match=r"running turn|busy"):
        await collect(sdk.send_message(message("second", context_id=first.task.context_id)))
    await sdk.cancel_task(CancelTaskRequest(id=first.task.id))


async def test_keys_mode(make_clients: MakeClients, scripted: ScriptedProvider) -> None:
    clients = await make_clients()
    room = await create_room(clients.alice, ["alpha"])
    path = f"/a2a/rooms/{room['id']}"
    card = await clients.alice.get(f"{path}/.well-known/agent-card.json")
    assert card.json()["securitySchemes"]["pantheonApiKey"]["httpAuthSecurityScheme"]["scheme"] == (
        "Bearer"
    )
    anon_card = await clients.anon.get(f"{path}/.well-known/agent-card.json")
    assert anon_card.status_code == 401
    assert anon_card.headers["WWW-Authenticate"].startswith("Bearer")
    assert "API key" in anon_card.json()["error"]["message"]
    anon_call = await clients.anon.post(path, json=rpc("GetTask", {"id": UNKNOWN}), headers=V1)
    assert anon_call.status_code == 401
    assert anon_call.json()["error"]["code"] == -32600
    # Bob sees neither Alice's room nor, from his own room, her task.
    bob_card = await clients.bob.get(f"{path}/.well-known/agent-card.json")
    assert bob_card.status_code == 404
    alice = await a2a_for(clients.app, room["id"], clients.keys["alice"], streaming=False)
    [done] = await collect(alice.send_message(message("hi")))
    bobs_room = await create_room(clients.bob, ["beta"])
    bob = await a2a_for(clients.app, bobs_room["id"], clients.keys["bob"])
    with pytest.raises(TaskNotFoundError):
        await bob.get_task(GetTaskRequest(id=done.task.id))
    with pytest.raises(TaskNotFoundError):
        await bob.cancel_task(CancelTaskRequest(id=done.task.id))
    assert list((await bob.list_tasks(ListTasksRequest())).tasks) == []
    assert [t.id for t in (await alice.list_tasks(ListTasksRequest())).tasks] == [done.task.id]


async def test_wrong_method_and_oversized_body_take_a2a_shapes(
    client: httpx.AsyncClient, settings: Settings
) -> None:
    room = await create_room(client, ["alpha"])
    url = f"/a2a/rooms/{room['id']}"
    wrong = await client.get(url, headers=V1)
    assert wrong.status_code == 405
    assert wrong.json()["error"]["code"] == 405
    assert "POST" in wrong.headers["Allow"]
    huge = b"x" * (settings.limits.max_body_bytes + 1)
    big = await client.post(url, content=huge, headers={**V1, "Content-Type": "application/json"})
    assert big.status_code == 413
    assert big.json()["error"]["status"] == "INVALID_ARGUMENT"
