"""Shared fixtures: an empty database on SQLite and on PostgreSQL, the app, an HTTP client.

Every test that uses ``client`` runs once per backend; the PostgreSQL run is marked
``postgres`` (see tests/postgres.py for when it is skipped).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from asgi_lifespan import LifespanManager
from fastapi import FastAPI

from pantheon.db.migrations import upgrade
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.main import create_app
from pantheon.settings import LLMSettings, Settings
from tests.postgres import postgres_database


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """An empty database URL on each backend; every test using it runs on both."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'test.db'}"
    else:
        async with postgres_database() as url:
            yield url


@pytest.fixture
def scripted() -> ScriptedProvider:
    return ScriptedProvider()


@pytest.fixture
def settings(tmp_path: Path, db_url: str) -> Settings:
    # Millisecond backoff: retry paths stay fast without changing how many attempts run.
    fast_retries = LLMSettings(backoff_base_s=0.001, backoff_max_s=0.005)
    return Settings(
        data_dir=tmp_path, database_url=db_url, default_model="scripted", llm=fast_retries
    )


@pytest.fixture
async def app(settings: Settings, scripted: ScriptedProvider) -> AsyncIterator[FastAPI]:
    await upgrade(settings.resolved_database_url)
    application = create_app(settings, scripted=scripted)
    async with LifespanManager(application):
        yield application


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        yield http
