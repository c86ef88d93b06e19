"""Shared fixtures: a database on SQLite and on PostgreSQL, the app, an HTTP client.

Every test that uses ``client`` runs once per backend; the PostgreSQL run is marked
``postgres`` (see tests/postgres.py for when it is skipped).
"""

from __future__ import annotations

import asyncio
import functools
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from pantheon.db.migrations import upgrade
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.settings import KnowledgeSettings, LLMSettings, Settings
from tests import tiers
from tests.app_factory import AppWith, RunningApp, running_app
from tests.llm.mock_openai import MockOpenAI
from tests.postgres import drop_templates, postgres_database


def pytest_configure(config: pytest.Config) -> None:
    tiers.configure(config)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Each test gets its tier (tests/tiers.py): ``make check`` selects unit and api."""
    tiers.assign(items)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Drop the migrated PostgreSQL templates this process (one xdist worker) made."""
    asyncio.run(drop_templates())


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def backend(request: pytest.FixtureRequest) -> str:
    """The database backend this test runs on; every test using a database runs on both."""
    backend_name: str = request.param
    return backend_name


@pytest.fixture
async def db_url(backend: str, tmp_path: Path) -> AsyncIterator[str]:
    """An empty database (no tables), for tests of the migrations themselves."""
    if backend == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'empty.db'}"
    else:
        async with postgres_database() as url:
            yield url


@pytest.fixture
async def migrated_db_url(backend: str, tmp_path: Path) -> AsyncIterator[str]:
    """A database at the latest migration (SQLite: a copy of one migrated once per run)."""
    if backend == "sqlite":
        path = tmp_path / "test.db"
        shutil.copyfile(await _sqlite_template(tmp_path.parent), path)
        yield f"sqlite+aiosqlite:///{path}"
    else:
        async with postgres_database(migrated=True) as url:
            yield url


async def _sqlite_template(directory: Path) -> Path:
    template = directory / "pantheon-template.db"
    if not template.exists():
        partial = directory / "pantheon-template.partial.db"
        await upgrade(f"sqlite+aiosqlite:///{partial}")
        partial.rename(template)
    return template


@pytest.fixture
def scripted() -> ScriptedProvider:
    return ScriptedProvider()


@pytest.fixture
def settings(tmp_path: Path, migrated_db_url: str) -> Settings:
    # Millisecond backoff: retry paths stay fast without changing how many attempts run.
    fast_retries = LLMSettings(backoff_base_s=0.001, backoff_max_s=0.005)
    # The deterministic built-in embedder: tests/knowledge runs the real local one on purpose.
    knowledge = KnowledgeSettings(embedder="hashing")
    return Settings(
        data_dir=tmp_path,
        database_url=migrated_db_url,
        default_model="scripted",
        llm=fast_retries,
        knowledge=knowledge,
    )


@pytest.fixture
def app_with(settings: Settings, scripted: ScriptedProvider) -> AppWith:
    """``async with app_with(**overrides) as running``: the app on this test's settings
    (its database backend) with ``overrides``, its lifespan running, ``running.http`` on it."""
    return functools.partial(running_app, settings, scripted)


@pytest.fixture
async def started_app(app_with: AppWith) -> AsyncIterator[RunningApp]:
    async with app_with() as started:
        yield started


@pytest.fixture
def app(started_app: RunningApp) -> FastAPI:
    return started_app.app


@pytest.fixture
def client(started_app: RunningApp) -> httpx.AsyncClient:
    return started_app.http


@pytest.fixture
async def upstream() -> AsyncIterator[MockOpenAI]:
    """An in-process OpenAI-compatible server on a real port, for real-process tests."""
    server = MockOpenAI()
    await server.start()
    try:
        yield server
    finally:
        await server.stop()
