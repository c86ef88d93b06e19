"""An extra app + client on given settings, for tests that need another configuration."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import httpx
from asgi_lifespan import LifespanManager

from pantheon.db.migrations import upgrade
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.server.main import create_app
from pantheon.settings import Settings


@contextlib.asynccontextmanager
async def running_client(
    settings: Settings, scripted: ScriptedProvider
) -> AsyncIterator[httpx.AsyncClient]:
    await upgrade(settings.resolved_database_url)
    app = create_app(settings, scripted=scripted)
    async with LifespanManager(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            yield client
