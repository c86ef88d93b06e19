"""The official ``mcp`` SDK client, its HTTP going straight into the app (ASGI transport).

``mcp_client(app, key)`` connects as a host would: ``mode="auto"`` negotiates the newest
revision the SDK speaks; ``mode="legacy"`` the initialize handshake. The host name is a
loopback one: in local mode the endpoint accepts only those (DNS rebinding).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx2
from fastapi import FastAPI
from mcp import Client
from mcp.client.session import ElicitationFnT
from mcp.client.streamable_http import streamable_http_client

from tests.auth.conftest import keys_settings, make_clients  # noqa: F401  (fixtures)
from tests.replicas.conftest import database_url, redis  # noqa: F401  (fixtures: PostgreSQL, Redis)
from tests.turns_api.conftest import serve  # noqa: F401  (fixture: a real uvicorn server)

BASE = "http://127.0.0.1:8000"


def http_for(app: FastAPI, key: str | None = None) -> httpx2.AsyncClient:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    transport = httpx2.ASGITransport(app=app)
    return httpx2.AsyncClient(transport=transport, base_url=BASE, headers=headers)


@asynccontextmanager
async def mcp_client_at(url: str, key: str | None = None) -> AsyncIterator[Client]:
    """An SDK client of the real server at ``url`` (streams arrive as they are sent)."""
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client,
    ):
        yield client


@asynccontextmanager
async def mcp_client(
    app: FastAPI,
    key: str | None = None,
    mode: str = "auto",
    elicitation: ElicitationFnT | None = None,
) -> AsyncIterator[Client]:
    """An SDK client connected to ``app``'s ``/mcp`` (answering elicitations when given)."""
    async with http_for(app, key) as http:
        transport = streamable_http_client(f"{BASE}/mcp", http_client=http)
        async with Client(transport, mode=mode, elicitation_callback=elicitation) as client:
            yield client
