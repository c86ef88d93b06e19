"""The official openai SDK as the client, pointed at the app in process (ASGI transport).

``oai`` speaks to the ``app`` fixture (local auth mode, SQLite and PostgreSQL); ``client``
(plain httpx) builds rooms and agents through the native API. Retries are off so every
request is exactly one turn. ``make_clients`` (keys mode, alice and bob) and ``serve`` (a
real uvicorn server, for disconnects) come from tests/auth and tests/turns_api.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import httpx2
import openai
import pytest
from fastapi import FastAPI
from openai.types.chat import ChatCompletionChunk, ChatCompletionUserMessageParam

from tests.auth.conftest import keys_settings, make_clients  # noqa: F401  (fixtures)
from tests.factories import create_room
from tests.turns_api.conftest import serve  # noqa: F401  (fixture: a real uvicorn server)

BASE = "http://test/openai/v1"


def openai_for(app: FastAPI, key: str = "unused-in-local-mode") -> openai.AsyncOpenAI:
    """An SDK client whose HTTP goes straight into ``app``."""
    # The SDK's own HTTP library (httpx2, a fork of httpx) has the same ASGI transport.
    http = httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), base_url="http://test")
    return openai.AsyncOpenAI(base_url=BASE, api_key=key, http_client=http, max_retries=0)


@pytest.fixture
async def oai(app: FastAPI) -> AsyncIterator[openai.AsyncOpenAI]:
    sdk = openai_for(app)
    yield sdk
    await sdk.close()


async def room_model(client: httpx.AsyncClient, keys: list[str], mode: str) -> str:
    """A new room with agents ``keys`` in ``mode``; its model id."""
    room = await create_room(client, keys, mode=mode)
    return f"room-{room['id']}"


def user(text: str) -> ChatCompletionUserMessageParam:
    return {"role": "user", "content": text}


async def collect(
    stream: openai.AsyncStream[ChatCompletionChunk],
) -> tuple[list[ChatCompletionChunk], str, str]:
    """Every chunk, and the joined ``content`` and ``reasoning_content`` deltas."""
    chunks = [c async for c in stream]
    content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    reasoning = "".join(
        str((c.choices[0].delta.model_extra or {}).get("reasoning_content") or "")
        for c in chunks
        if c.choices
    )
    return chunks, content, reasoning
