"""One app per live-turn backend: the same contract tests run against each."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from asgi_lifespan import LifespanManager
from fastapi import FastAPI

from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.server.main import create_app
from pantheon.settings import Settings
from tests.redis_server import redis_server

LiveApp = tuple[FastAPI, httpx.AsyncClient]


@pytest.fixture(params=["in-process", pytest.param("redis", marks=pytest.mark.redis)])
async def live_app(
    request: pytest.FixtureRequest, settings: Settings, scripted: ScriptedProvider, tmp_path: Path
) -> AsyncIterator[LiveApp]:
    """The app with running turns kept in this process, or shared through a real Redis."""
    async with contextlib.AsyncExitStack() as stack:
        url = None
        if request.param == "redis":
            url = (await stack.enter_async_context(redis_server(tmp_path))).url
        app = create_app(settings.model_copy(update={"redis_url": url}), scripted=scripted)
        await stack.enter_async_context(LifespanManager(app))
        assert app.state.services.live_backend.name == request.param
        transport = httpx.ASGITransport(app=app)
        yield (
            app,
            await stack.enter_async_context(
                httpx.AsyncClient(transport=transport, base_url="http://test")
            ),
        )
