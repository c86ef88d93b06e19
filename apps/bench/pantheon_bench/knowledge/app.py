"""An in-process Pantheon app for the knowledge benchmarks, on SQLite or PostgreSQL.

The knowledge pipeline (parse, chunk, embed, search) is in-process work of the API
server, so running the app in this process with an ASGI transport measures what it costs
the server, without socket noise. PostgreSQL databases are created and dropped per run.
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg
import httpx
from asgi_lifespan import LifespanManager
from fastapi import FastAPI

from pantheon.db.migrations import upgrade
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.server.main import create_app
from pantheon.settings import KnowledgeSettings, LimitSettings, Settings

PG_DSN = "postgresql://postgres:postgres@127.0.0.1:5432/postgres"
# A PostgreSQL with the vector extension (what .ci/start-pgvector starts).
PGVECTOR_DSN = "postgresql://postgres:postgres@127.0.0.1:5433/postgres"
DSNS = {"postgres": PG_DSN, "pgvector": PGVECTOR_DSN}


@dataclass
class Running:
    app: FastAPI
    http: httpx.AsyncClient
    scripted: ScriptedProvider


@contextlib.asynccontextmanager
async def database(backend: str) -> AsyncIterator[str]:
    """A migrated, throwaway database URL: ``sqlite``, ``postgres`` or ``pgvector``."""
    if backend == "sqlite":
        with tempfile.TemporaryDirectory(prefix="pantheon-kbench-") as tmp:
            url = f"sqlite+aiosqlite:///{Path(tmp) / 'bench.db'}"
            await upgrade(url)
            yield url
        return
    pg_dsn = DSNS[backend]
    admin = await asyncpg.connect(pg_dsn, timeout=5)
    name = f"pantheon_kbench_{uuid.uuid4().hex[:10]}"
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        base = pg_dsn.rsplit("/", 1)[0].replace("postgresql://", "postgresql+asyncpg://", 1)
        url = f"{base}/{name}"
        await upgrade(url)
        yield url
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


@contextlib.asynccontextmanager
async def running(url: str, embedder: str, **knowledge: Any) -> AsyncIterator[Running]:
    """The app on ``url`` with ``embedder``, the scripted provider and a client."""
    with tempfile.TemporaryDirectory(prefix="pantheon-kbench-data-") as data_dir:
        settings = Settings(
            data_dir=Path(data_dir), database_url=url, default_model="scripted",
            knowledge=KnowledgeSettings(embedder=embedder, **knowledge),
            limits=LimitSettings(turns_per_minute=1_000_000),
        )  # fmt: skip
        scripted = ScriptedProvider(chunk_words=4)
        app = create_app(settings, scripted=scripted)
        async with LifespanManager(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(
                transport=transport, base_url="http://bench", timeout=600
            ) as http:
                yield Running(app, http, scripted)


async def post(http: httpx.AsyncClient, url: str, **kwargs: Any) -> dict[str, Any]:
    response = await http.post(url, **kwargs)
    response.raise_for_status()
    body: dict[str, Any] = response.json()
    return body


async def wait_ready(
    http: httpx.AsyncClient, document_id: str, timeout_s: float = 3600
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        body: dict[str, Any] = (await http.get(f"/v1/documents/{document_id}")).json()
        if body["status"] != "pending":
            if body["status"] != "ready":
                raise RuntimeError(f"ingest failed: {body['error']}")
            return body
        await asyncio.sleep(0.05)
    raise TimeoutError(f"document {document_id} not ready after {timeout_s} s")
