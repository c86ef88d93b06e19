"""An extra app + client on given settings, for tests that need another configuration."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import httpx

from pantheon.db.migrations import upgrade
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.settings import Settings
from tests.app_factory import running_app


@contextlib.asynccontextmanager
async def running_client(
    settings: Settings, scripted: ScriptedProvider
) -> AsyncIterator[httpx.AsyncClient]:
    await upgrade(settings.resolved_database_url)  # callers may bring a database of their own
    async with running_app(settings, scripted) as started:
        yield started.http
