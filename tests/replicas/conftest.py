"""Fixtures of the replica tests: a migrated PostgreSQL database and a Redis (the mock
upstream is the shared one in tests/conftest.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.postgres import postgres_database
from tests.redis_server import RedisServer, redis_server


@pytest.fixture
async def redis(tmp_path: Path) -> AsyncIterator[RedisServer]:
    async with redis_server(tmp_path) as server:
        yield server


@pytest.fixture
async def database_url() -> AsyncIterator[str]:
    async with postgres_database(migrated=True) as url:
        yield url
