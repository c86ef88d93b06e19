"""Details of the A2A 1.0 specification the TCK checks, over plain HTTP: opaque context
ids, the HTTP+JSON error statuses of the spec's table, ``A2A-Version`` as a query
parameter, ``historyLength``, the client's ``messageId``, paging limits, trailing slashes,
and bodies no parser should see (Latin-1, deep nesting)."""

from __future__ import annotations

import json
from typing import Any

import httpx
from fastapi import FastAPI

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.factories import create_room

V1 = {"A2A-Version": "1.0"}
HUGE_TOKEN = str(2**63)


def rpc(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 3, "method": method, "params": params}


def sent(text: str, message_id: str = "client-msg-1", **more: Any) -> dict[str, Any]:
    message = {"role": "ROLE_USER", "messageId": message_id, "parts": [{"text": text}], **more}
    return {"message": message}


async def _room(client: httpx.AsyncClient, scripted: ScriptedProvider) -> str:
    scripted.script("Hello there.", agent="alpha")
    room = await create_room(client, ["alpha"], mode="roundtable")
    return f"/a2a/rooms/{room['id']}"


async def _call(client: httpx.AsyncClient, url: str, method: str, params: dict[str, Any]) -> Any:
    answer = await client.post(url, json=rpc(method, params), headers=V1)
    assert answer.status_code == 200, answer.text
    return answer.json()


async def test_list_tasks_takes_any_context_id(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    url = await _room(client, scripted)
    task = (await _call(client, url, "SendMessage", sent("hi")))["result"]["task"]
    for context in ("my-own-context", "x" * 300, "\u00e9t\u00e9"):
        listed = await _call(client, url, "ListTasks", {"contextId": context})
        assert listed["result"]["tasks"] == [], (context, listed)
        rest = await client.get(f"{url}/tasks", params={"contextId": context}, headers=V1)
        assert (rest.status_code, rest.json()["tasks"]) == (200, []), rest.text
    known = await _call(client, url, "ListTasks", {"contextId": task["contextId"]})
    assert [t["id"] for t in known["result"]["tasks"]] == [task["id"]]


async def test_http_json_errors_take_the_spec_statuses(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    url = await _room(client, scripted)
    task = (await _call(client, url, "SendMessage", sent("hi")))["result"]["task"]
    cancel = await client.post(f"{url}/tasks/{task['id']}:cancel", headers=V1)
    assert cancel.status_code == 409, cancel.text
    assert (cancel.json()["error"]["code"], cancel.json()["error"]["status"]) == (
        409, "FAILED_PRECONDITION",
    )  # fmt: skip
    link = {"message": {"role": "ROLE_USER", "messageId": "2", "parts": [{"url": "https://x.y"}]}}
    part = await client.post(f"{url}/message:send", json=link, headers=V1)
    assert part.status_code == 415, part.text
    assert part.json()["error"]["code"] == 415
    typed = {**V1, "Content-Type": "text/plain"}
    plain = await client.post(f"{url}/message:send", content=json.dumps(sent("hi")), headers=typed)
    assert plain.status_code == 415, plain.text
    assert "Content-Type" in plain.json()["error"]["message"]
    # The JSON-RPC binding keeps its own codes.
    canceled = await _call(client, url, "CancelTask", {"id": task["id"]})
    assert canceled["error"]["code"] == -32002


async def test_the_version_may_come_as_a_query_parameter(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    url = await _room(client, scripted)
    body = rpc("ListTasks", {})
    by_query = await client.post(url, params={"A2A-Version": "1.0"}, json=body)
    assert "result" in by_query.json(), by_query.text
    rest = await client.get(f"{url}/tasks", params={"A2A-Version": "1.0"})
    assert rest.status_code == 200, rest.text
    other = await client.post(url, params={"A2A-Version": "9.0"}, json=body)
    assert other.json()["error"]["code"] == -32009


async def test_history_length_and_the_clients_message_id(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    url = await _room(client, scripted)
    answer = await _call(client, url, "SendMessage", sent("hi", "client-msg-1"))
    task = answer["result"]["task"]
    assert [m["messageId"] for m in task["history"]] == ["client-msg-1"]
    got = await _call(client, url, "GetTask", {"id": task["id"]})
    assert [m["messageId"] for m in got["result"]["history"]] == ["client-msg-1"]
    none = await _call(client, url, "GetTask", {"id": task["id"], "historyLength": 0})
    assert none["result"].get("history", []) == []
    config = {"configuration": {"historyLength": 0}}
    quiet = await _call(client, url, "SendMessage", {**sent("again", "client-msg-2"), **config})
    assert quiet["result"]["task"].get("history", []) == []
    listed = await _call(client, url, "ListTasks", {"historyLength": 1})
    assert [[m["messageId"] for m in t["history"]] for t in listed["result"]["tasks"]] == [
        ["client-msg-2"], ["client-msg-1"],
    ]  # fmt: skip
    bare = await _call(client, url, "ListTasks", {"historyLength": 0})
    assert all(not t.get("history") for t in bare["result"]["tasks"])
    for method, params in [
        ("GetTask", {"id": task["id"], "historyLength": -1}),
        ("ListTasks", {"historyLength": -1}),
        ("ListTasks", {"pageSize": 0}),
        ("ListTasks", {"pageToken": HUGE_TOKEN}),
        ("ListTasks", {"pageToken": "\u00b2"}),
        ("SendMessage", {**sent("x", "3"), "configuration": {"historyLength": -2}}),
    ]:
        refused = await _call(client, url, method, params)
        assert refused["error"]["code"] == -32602, (method, params, refused)
    rest = await client.get(f"{url}/tasks", params={"pageToken": HUGE_TOKEN}, headers=V1)
    assert rest.status_code == 400, rest.text


async def test_trailing_slashes_are_accepted(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    url = await _room(client, scripted)
    card = await client.get(f"{url}/.well-known/agent-card.json/")
    assert card.status_code == 200, card.text
    assert card.json()["supportedInterfaces"][0]["url"].endswith(url)
    answer = await client.post(f"{url}/", json=rpc("ListTasks", {}), headers=V1)
    assert answer.status_code == 200, answer.text
    assert "result" in answer.json(), answer.text


async def test_bodies_no_parser_should_see_are_parse_or_params_errors(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    url = await _room(client, scripted)
    latin = json.dumps(rpc("SendMessage", sent("caf\u00e9")), ensure_ascii=False)
    deep_json = '{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": ' + (
        "[" * 100_000 + "]" * 100_000 + "}"
    )
    nested: dict[str, Any] = {}
    for _ in range(700):
        nested = {"a": nested}
    deep_message = rpc("SendMessage", sent("hi", metadata=nested))
    bodies = {
        "latin-1": (latin.encode("latin-1"), -32700),
        "deep JSON": (deep_json.encode(), -32700),
        # Past limits.max_json_depth the body is refused before any parser reads it.
        "deep message": (json.dumps(deep_message).encode(), -32700),
    }
    for name, (body, code) in bodies.items():
        answer = await client.post(url, content=body, headers=V1)
        assert answer.status_code == 200, (name, answer.text[:300])
        assert answer.json()["error"]["code"] == code, (name, answer.text[:300])
        rest_body = json.dumps(deep_message["params"]).encode() if name == "deep message" else body
        rest = await client.post(f"{url}/message:send", content=rest_body, headers=V1)
        assert rest.status_code == 400, (name, rest.text[:300])
