"""The official ``a2a-sdk`` client, pointed at the app in process (ASGI transport).

``a2a_for`` builds a client for one room from its agent card; ``client`` (plain httpx)
builds rooms through the native API; ``make_clients`` (keys mode, alice and bob) comes
from tests/auth.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
from a2a.client import Client, ClientConfig, ClientFactory
from a2a.types.a2a_pb2 import Message, Part, Role, SendMessageRequest, StreamResponse
from fastapi import FastAPI

from tests.auth.conftest import keys_settings, make_clients  # noqa: F401  (fixtures)
from tests.replicas.conftest import database_url, redis  # noqa: F401  (fixtures: PostgreSQL, Redis)
from tests.turns_api.conftest import serve  # noqa: F401  (fixture: a real uvicorn server)

BASE = "http://test"


def http_for(app: FastAPI, key: str | None = None) -> httpx.AsyncClient:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE, headers=headers)


async def a2a_for(
    app: FastAPI, room_id: str, key: str | None = None, *, streaming: bool = True,
    bindings: tuple[str, ...] = ("JSONRPC",),
) -> Client:  # fmt: skip
    """An SDK client for the room's agent, built from its card."""
    config = ClientConfig(
        httpx_client=http_for(app, key),
        streaming=streaming,
        supported_protocol_bindings=list(bindings),
        use_client_preference=True,
    )
    return await ClientFactory(config).create_from_url(f"{BASE}/a2a/rooms/{room_id}")


def message(text: str, context_id: str = "", task_id: str = "") -> SendMessageRequest:
    sent = Message(
        role=Role.ROLE_USER, message_id="m-1", parts=[Part(text=text)],
        context_id=context_id, task_id=task_id,
    )  # fmt: skip
    return SendMessageRequest(message=sent)


async def collect(stream: AsyncIterator[StreamResponse]) -> list[StreamResponse]:
    return [item async for item in stream]
