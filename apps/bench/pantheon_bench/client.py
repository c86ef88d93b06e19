"""Talking to Pantheon and the mock as a client does: aiohttp, SSE read line by line.

aiohttp rather than httpx because the load generator shares the machine's two cores with
the server and the mock; its cost per request is the lowest of the clients at hand.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from pantheon_bench.procs import Child, free_port, start_child

JSON = dict[str, Any]


def session(limit: int = 0) -> aiohttp.ClientSession:
    """A client session with an unbounded pool (``limit=0``) and no total timeout."""
    connector = aiohttp.TCPConnector(limit=limit, force_close=False)
    return aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=None))


async def post_json(http: aiohttp.ClientSession, url: str, body: JSON) -> JSON:
    async with http.post(url, json=body) as response:
        data: JSON = await response.json()
        if response.status >= 400:
            raise RuntimeError(f"POST {url}: {response.status} {data}")
        return data


async def sse_events(response: aiohttp.ClientResponse) -> AsyncIterator[JSON]:
    """The ``data:`` JSON of each SSE message (Pantheon's one-line events)."""
    async for raw in response.content:
        if raw.startswith(b"data:"):
            payload = raw[5:].strip()
            if payload and payload != b"[DONE]":
                yield json.loads(payload)


@dataclass
class StreamedTurn:
    """What a client saw of one streamed turn (times from the request being sent)."""

    ttft_s: float | None = None
    total_s: float = 0.0
    deltas: int = 0
    status: str | None = None
    types: list[str] = field(default_factory=list)


async def stream_turn(
    http: aiohttp.ClientSession, base: str, session_id: str, message: str
) -> StreamedTurn:
    seen = StreamedTurn()
    start = time.perf_counter()
    url = f"{base}/v1/sessions/{session_id}/turns"
    headers = {"Accept": "text/event-stream"}
    async with http.post(url, json={"message": message}, headers=headers) as response:
        if response.status >= 400:
            raise RuntimeError(f"POST {url}: {response.status} {await response.text()}")
        async for event in sse_events(response):
            kind = str(event["type"])
            if kind == "delta":
                seen.deltas += 1
                if seen.ttft_s is None:
                    seen.ttft_s = time.perf_counter() - start
            elif kind == "turn_completed":
                seen.status = str(event["status"])
            elif kind == "error":
                seen.status = "error"
            seen.types.append(kind)
    seen.total_s = time.perf_counter() - start
    return seen


class Api:
    """Resources through Pantheon's public API: agents, rooms, sessions."""

    def __init__(self, http: aiohttp.ClientSession, base: str) -> None:
        self.http, self.base = http, base
        self._agents: dict[str, JSON] = {}

    async def agent(self, key: str, model: str) -> JSON:
        """The agent ``key`` (created once per server; keys are unique per owner)."""
        if key in self._agents:
            return self._agents[key]
        body = {"key": key, "name": key.title(), "role_prompt": f"You are {key}.", "model": model}
        agent = await post_json(self.http, f"{self.base}/v1/agents", body)
        self._agents[key] = agent
        return agent

    async def standalone_sessions(self, key: str, model: str, count: int) -> list[str]:
        agent = await self.agent(key, model)
        url = f"{self.base}/v1/agents/{agent['id']}/sessions"
        return [str((await post_json(self.http, url, {"title": "b"}))["id"]) for _ in range(count)]

    async def orchestrator_sessions(
        self, prefix: str, keys: tuple[str, ...], models: tuple[str, str], count: int
    ) -> list[str]:
        """``count`` sessions of one orchestrator room (manager, specialist models)."""
        body = {"name": prefix, "mode": "orchestrator", "manager_model": models[0]}
        room = await post_json(self.http, f"{self.base}/v1/rooms", body)
        for key in keys:
            agent = await self.agent(key, models[1])
            url = f"{self.base}/v1/rooms/{room['id']}/agents"
            await post_json(self.http, url, {"agent_id": agent["id"]})
        url = f"{self.base}/v1/rooms/{room['id']}/sessions"
        return [str((await post_json(self.http, url, {"title": "b"}))["id"]) for _ in range(count)]

    async def stats(self, collect: bool = True) -> JSON:
        url = f"{self.base}/_bench/stats?collect={'true' if collect else 'false'}"
        async with self.http.get(url) as response:
            data: JSON = await response.json()
            return data


def start_server(name: str, env: dict[str, str]) -> Child:
    """A Pantheon bench server (see ``server``) configured by ``env``."""
    port = free_port()
    return start_child(name, "pantheon_bench.server", ["--port", str(port)], port, env)
