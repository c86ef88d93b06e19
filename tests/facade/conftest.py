"""The official openai SDK as the client, pointed at the app in process (ASGI transport).

``oai`` speaks to the ``app`` fixture (local auth mode, SQLite and PostgreSQL); ``client``
(plain httpx) builds rooms and agents through the native API. Retries are off so every
request is exactly one turn.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import openai
import pytest
from fastapi import FastAPI

BASE = "http://test/openai/v1"


def openai_for(app: FastAPI, key: str = "unused-in-local-mode") -> openai.AsyncOpenAI:
    """An SDK client whose HTTP goes straight into ``app``."""
    transport = httpx.ASGITransport(app=app)
    http = httpx.AsyncClient(transport=transport, base_url="http://test")
    return openai.AsyncOpenAI(base_url=BASE, api_key=key, http_client=http, max_retries=0)


@pytest.fixture
async def oai(app: FastAPI) -> AsyncIterator[openai.AsyncOpenAI]:
    sdk = openai_for(app)
    yield sdk
    await sdk.close()
