"""Reading a turn's SSE stream in tests with the httpx-sse library.

A keep-alive comment after an event with an id reaches httpx-sse as an event with empty
data (it keeps the last id): those are skipped, as EventSource skips them."""

from __future__ import annotations

import json
from typing import Any

import httpx
from httpx_sse import aconnect_sse

Event = tuple[int, dict[str, Any]]


async def stream_turn(
    client: httpx.AsyncClient, session_id: str, body: dict[str, Any], **kwargs: Any
) -> list[Event]:
    """POST a turn as SSE and collect every (id, data) until the stream ends."""
    url = f"/v1/sessions/{session_id}/turns"
    headers = {"Accept": "text/event-stream", **kwargs.pop("headers", {})}
    async with aconnect_sse(client, "POST", url, json=body, headers=headers, **kwargs) as src:
        src.response.raise_for_status()
        return [(int(sse.id), json.loads(sse.data)) async for sse in src.aiter_sse() if sse.data]


async def read_events(client: httpx.AsyncClient, turn_id: str, **kwargs: Any) -> list[Event]:
    """GET a turn's event stream (replay or live) and collect it."""
    async with aconnect_sse(client, "GET", f"/v1/turns/{turn_id}/events", **kwargs) as src:
        src.response.raise_for_status()
        return [(int(sse.id), json.loads(sse.data)) async for sse in src.aiter_sse() if sse.data]


def types(events: list[Event]) -> list[str]:
    return [data["type"] for _, data in events]


def deltas_by_agent(events: list[Event]) -> dict[str, str]:
    joined: dict[str, str] = {}
    for _, data in events:
        if data["type"] == "delta":
            joined[data["agent_key"]] = joined.get(data["agent_key"], "") + data["text"]
    return joined
