"""``/mcp``, byte for byte: ``tools/list`` and a ``tools/call`` running one turn of each
mode (the agent's tool for standalone, the room's tool for each room mode), with a
``progressToken`` so its progress notifications stream, on the newest revision and on a
handshake one, as raw JSON-RPC over HTTP (what any host receives), against
tests/golden/data/mcp.json."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from mcp_types import CLIENT_CAPABILITIES_META_KEY, PROTOCOL_VERSION_META_KEY

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.golden.golden import ALL_MODES, captured, check
from tests.golden.scenario import Target, prepare
from tests.mcp_server.conftest import http_for

REVISIONS = {"modern": "2026-07-28", "handshake": "2025-11-25"}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def _request(revision: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    version = REVISIONS[revision]
    meta: dict[str, Any] = dict(params.pop("_meta", {}))
    if revision == "modern":
        meta |= {PROTOCOL_VERSION_META_KEY: version, CLIENT_CAPABILITIES_META_KEY: {}}
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": meta}}


async def _post(app: FastAPI, revision: str, body: dict[str, Any], name: str = "") -> Any:
    headers = {**HEADERS, "MCP-Protocol-Version": REVISIONS[revision], "Mcp-Method": body["method"]}
    if name:
        headers["Mcp-Name"] = name
    async with http_for(app) as http:
        return await http.post("/mcp", json=body, headers=headers)


def tool_of(target: Target) -> str:
    return "agent_calc" if target.room_id is None else f"room_{target.room_name}"


@pytest.mark.parametrize("revision", REVISIONS)
@pytest.mark.parametrize("mode", ALL_MODES)
async def test_tool_call_is_unchanged(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider, mode: str, revision: str
) -> None:
    target = await prepare(app, client, scripted, mode)
    tool = tool_of(target)
    listed = await _post(app, revision, _request(revision, "tools/list", {}))
    call = {"name": tool, "arguments": {"message": target.message}, "_meta": {"progressToken": 1}}
    called = await _post(app, revision, _request(revision, "tools/call", call), tool)
    assert (listed.status_code, called.status_code) == (200, 200), called.text
    check("mcp", f"{mode}/{revision}/tools_list", captured(listed))
    check("mcp", f"{mode}/{revision}/tools_call", captured(called))
