"""Shared pieces of the approval tests: a model that calls a gated calculator (and an
ungated echo in the same round), sessions that hold such an agent, and decision requests."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import httpx
from httpx_sse import aconnect_sse

from pantheon.llm.providers.scripted import ScriptedReply, tool_call
from pantheon.llm.types import LLMRequest
from tests.factories import add_to_room, create_agent, create_room, create_session
from tests.sse_client import Event


async def echo(args: Mapping[str, Any]) -> str:
    return f"echo: {args.get('expression', '')}"


def gated_agent(request: LLMRequest) -> ScriptedReply:
    """Asks for 17*23 (and an echo when offered) once; then answers with what it read."""
    last = request.messages[-1]
    if last.role == "tool":
        tool_texts = [m.content for m in request.messages if m.role == "tool"]
        return ScriptedReply("Result: " + " | ".join(tool_texts))
    names = {t.name for t in request.tools}
    calls = [tool_call("calculator", {"expression": "17*23"}, "c-calc")]
    if "echo" in names:
        calls.append(tool_call("echo", {"expression": "hi"}, "c-echo"))
    if "calculator" in names:
        return ScriptedReply("Checking. ", tuple(calls))
    return ScriptedReply("No tools.")


async def agent_session(client: httpx.AsyncClient, tools: list[str]) -> str:
    """A standalone session on agent ``calc`` with ``tools`` entries."""
    calc = await create_agent(client, "calc", tools=tools)
    response = await client.post(f"/v1/agents/{calc['id']}/sessions", json={"title": "t"})
    assert response.status_code == 201, response.text
    session_id: str = response.json()["id"]
    return session_id


async def room_session(
    client: httpx.AsyncClient, mode: str, tools: list[str], others: list[str]
) -> str:
    """A room (``others`` first, then ``calc`` with ``tools``) and a session in it."""
    room = await create_room(client, others, mode=mode)
    calc = await create_agent(client, "calc", tools=tools)
    await add_to_room(client, room["id"], calc["id"])
    session_id: str = (await create_session(client, room["id"]))["id"]
    return session_id


def decisions(*items: tuple[str, bool, str]) -> dict[str, Any]:
    return {"decisions": [{"call_id": c, "approve": a, "reason": r} for c, a, r in items]}


async def decide(client: httpx.AsyncClient, turn_id: str, body: dict[str, Any]) -> httpx.Response:
    return await client.post(f"/v1/turns/{turn_id}/approvals", json=body)


async def decide_streamed(
    client: httpx.AsyncClient, turn_id: str, body: dict[str, Any]
) -> list[Event]:
    """POST the decisions asking for SSE; every (id, data) of the continuation."""
    url = f"/v1/turns/{turn_id}/approvals"
    headers = {"Accept": "text/event-stream"}
    async with aconnect_sse(client, "POST", url, json=body, headers=headers) as src:
        src.response.raise_for_status()
        return [(int(sse.id), json.loads(sse.data)) async for sse in src.aiter_sse() if sse.data]


def of(events: list[Event], kind: str) -> list[dict[str, Any]]:
    return [data for _, data in events if data["type"] == kind]
