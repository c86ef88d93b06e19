"""The one way tests build the app in process: settings with overrides, its lifespan run,
and an httpx client on it (``app_with`` in tests/conftest.py binds the test's settings).

A real server (uvicorn in the test's loop, or a spawned ``pantheon serve``) is not built
here: tests/turns_api/conftest.py ``serve`` and tests/replicas/cluster.py do that.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import httpx
from asgi_lifespan import LifespanManager
from fastapi import FastAPI

from pantheon.db.migrations import upgrade
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.server.main import create_app
from pantheon.settings import Settings


@dataclass
class RunningApp:
    """An app whose lifespan is running, and an in-process client on it."""

    app: FastAPI
    http: httpx.AsyncClient
    settings: Settings


AppWith = Callable[..., contextlib.AbstractAsyncContextManager[RunningApp]]


def in_process_client(app: FastAPI, headers: dict[str, str] | None = None) -> httpx.AsyncClient:
    """An httpx client that calls ``app`` directly (no server), sending ``headers``."""
    transport = httpx.ASGITransport(app=app)
    return httpx.AsyncClient(transport=transport, base_url="http://test", headers=headers)


@contextlib.asynccontextmanager
async def running_app(
    settings: Settings, scripted: ScriptedProvider | None = None, **overrides: Any
) -> AsyncIterator[RunningApp]:
    """The app on ``settings`` with ``overrides`` replacing fields (``redis_url=`` picks the
    Redis backend), started and stopped around the block. A database the overrides name
    anew is migrated first; the fixtures' own database already is."""
    chosen = settings.model_copy(update=overrides)
    if chosen.resolved_database_url != settings.resolved_database_url:
        await upgrade(chosen.resolved_database_url)
    app = create_app(chosen, scripted=scripted)
    async with LifespanManager(app), in_process_client(app) as http:
        yield RunningApp(app, http, chosen)
