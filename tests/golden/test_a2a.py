"""``/a2a/rooms/{room_id}``, byte for byte: one turn of each room mode, sent with
``SendMessage`` and ``SendStreamingMessage`` over the JSON-RPC binding and with
``message:send`` and ``message:stream`` over the HTTP+JSON binding, as raw HTTP (what any
A2A client receives), against tests/golden/data/a2a.json."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.golden.golden import ROOM_MODES, captured, check
from tests.golden.scenario import prepare

HEADERS = {"A2A-Version": "1.0"}
# Each call: the path under the room's URL, and whether it is JSON-RPC's method.
CALLS = {
    "jsonrpc_send": ("", "SendMessage"),
    "jsonrpc_stream": ("", "SendStreamingMessage"),
    "rest_send": ("/message:send", None),
    "rest_stream": ("/message:stream", None),
}


def _body(text: str, method: str | None) -> dict[str, Any]:
    message = {"role": "ROLE_USER", "messageId": "m-1", "parts": [{"text": text}]}
    if method is None:
        return {"message": message}
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": {"message": message}}


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("mode", ROOM_MODES)
async def test_send_message_is_unchanged(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider, mode: str, call: str
) -> None:
    target = await prepare(app, client, scripted, mode)
    path, method = CALLS[call]
    url = f"/a2a/rooms/{target.room_id}{path}"
    response = await client.post(url, json=_body(target.message, method), headers=HEADERS)
    assert response.status_code == 200, response.text
    check("a2a", f"{mode}/{call}", captured(response, unordered="pantheon"))
