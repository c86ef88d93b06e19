"""One app per live-turn backend: the same contract tests run against each."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.settings import Settings
from tests.app_factory import running_app
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
        started = await stack.enter_async_context(running_app(settings, scripted, redis_url=url))
        assert started.app.state.services.live_backend.name == request.param
        yield started.app, started.http
