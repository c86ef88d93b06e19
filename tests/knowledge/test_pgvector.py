"""pgvector (HNSW) on a PostgreSQL that has it: /ready reports it, search agrees with the
exact numpy path, the HNSW index serves the query, migration 0006 goes up and down.

Runs against the server of tests/pgvector.py (``.ci/start-pgvector`` in CI)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import numpy as np
import pytest
from fastapi import FastAPI
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from pantheon.db.migrations import downgrade, upgrade
from pantheon.db.models import Chunk
from pantheon.db.uow import unit_of_work
from pantheon.knowledge.pgvector import PgVector, index_name
from pantheon.knowledge.repository import ChunkRepository
from pantheon.knowledge.search import KnowledgeSearch
from pantheon.knowledge.vectors import to_blob
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.server.cli import main
from pantheon.settings import KnowledgeSettings, Settings
from tests.app_factory import running_app
from tests.factories import create_room
from tests.knowledge.helpers import ingested, search
from tests.knowledge.test_reindex import TOML
from tests.knowledge.test_search import FACTS
from tests.pgvector import pgvector_database

pytestmark = pytest.mark.pgvector
FILLER = 1500  # enough rows that the planner prefers the HNSW index to a full sort


@pytest.fixture
async def pg_app(tmp_path: Path) -> AsyncIterator[FastAPI]:
    async with pgvector_database(migrated=True) as url:
        settings = Settings(
            data_dir=tmp_path,
            database_url=url,
            default_model="scripted",
            knowledge=KnowledgeSettings(embedder="hashing"),
        )
        async with running_app(settings, ScriptedProvider()) as started:
            yield started.app


@pytest.fixture
async def pg_client(pg_app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=pg_app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        yield http


async def _ranked(app: FastAPI, place: str, query: str, *, hnsw: bool) -> list[uuid.UUID]:
    """Chunk ids of a vector-only search, through pgvector or the exact numpy path."""
    services = app.state.services
    async with unit_of_work(services.db, write=False) as session:
        search = KnowledgeSearch(
            ChunkRepository(session), services.knowledge.embedder, services.db.dialect, None,
            services.knowledge.pgvector if hnsw else None,
        )  # fmt: skip
        hits = await search.search([place], query, 10, mode="vector")
    return [hit.chunk_id for hit in hits]


async def _add_filler(app: FastAPI, document_id: str, count: int) -> None:
    """Random unit vectors as extra chunks of one document, written as ingest writes them."""
    knowledge = app.state.services.knowledge
    embedder, pgvector = knowledge.embedder, knowledge.pgvector
    rng = np.random.default_rng(7)
    vectors = rng.standard_normal((count, embedder.dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    chunks = [
        Chunk(
            id=uuid.uuid4(),
            document_id=uuid.UUID(document_id),
            position=1000 + i,
            text=f"filler {i}",
            embedder=embedder.ident,
            dim=embedder.dim,
            embedding=to_blob(vector),
        )
        for i, vector in enumerate(vectors)
    ]
    async with unit_of_work(app.state.services.db, write=True) as session:
        session.add_all(chunks)
        await session.flush()
        await pgvector.store(session, [c.id for c in chunks], list(vectors))
        await session.execute(text("ANALYZE chunks"))
        await session.execute(text("ANALYZE documents"))


async def test_ready_reports_pgvector_hnsw(pg_client: httpx.AsyncClient) -> None:
    knowledge = (await pg_client.get("/ready")).json()["knowledge"]
    assert knowledge["vector_search"] == "pgvector-hnsw"
    assert knowledge["vector_search_reason"] is None
    assert knowledge["dim"] == 384


async def test_hnsw_search_matches_exact_and_uses_the_index(
    pg_app: FastAPI, pg_client: httpx.AsyncClient
) -> None:
    room = await create_room(pg_client)
    place = f"rooms/{room['id']}"
    documents = {
        name: await ingested(pg_client, place, name, t.encode()) for name, t in FACTS.items()
    }
    stored = f"room:{room['id']}"
    queries = ["which planet has rings?", "knight chess move", "bread yeast", "ice and rock"]
    for query in queries:
        assert await _ranked(pg_app, stored, query, hnsw=True) == await _ranked(
            pg_app, stored, query, hnsw=False
        )
    hits = await search(pg_client, place, "which planet has rings?")  # hybrid through HTTP
    assert hits[0]["filename"] == "saturn.txt"

    await _add_filler(pg_app, documents["bread.txt"]["id"], FILLER)
    for query in queries:  # top 10 of 1503: HNSW (ef_search 100) finds the exact ones
        assert await _ranked(pg_app, stored, query, hnsw=True) == await _ranked(
            pg_app, stored, query, hnsw=False
        )
    services = pg_app.state.services
    pgvector: PgVector = services.knowledge.pgvector
    vector = await services.knowledge.embedder.embed_query("which planet has rings?")
    params = {
        "embedder": services.knowledge.embedder.ident, "owner": services.local_user_id,
        "places": [stored], "ready": "ready", "q": "[" + ",".join(map(str, vector)) + "]",
        "k": 50,
    }  # fmt: skip
    async with unit_of_work(pg_app.state.services.db, write=False) as session:
        rows = await session.execute(text("EXPLAIN " + pgvector.query_sql()), params)
        plan = "\n".join(rows.scalars())
    # The planner (tables analyzed) orders by the partial HNSW index instead of sorting.
    assert f"Index Scan using {index_name(384)} on chunks" in plan, plan


async def test_migration_up_and_down_on_pgvector() -> None:
    async with pgvector_database() as url:
        engine = create_async_engine(url)
        column = (
            "SELECT count(*) FROM information_schema.columns"
            " WHERE table_name = 'chunks' AND column_name = 'embedding_vec'"
        )
        extension = "SELECT count(*) FROM pg_extension WHERE extname = 'vector'"
        try:
            await upgrade(url)
            async with engine.connect() as conn:
                assert await conn.scalar(text(column)) == 1
                assert await conn.scalar(text(extension)) == 1
            await downgrade(url, "0005_sessions")
            async with engine.connect() as conn:
                assert await conn.scalar(text(column)) == 0
                assert await conn.scalar(text(extension)) == 0
            await upgrade(url)
            await downgrade(url, "base")
        finally:
            await engine.dispose()


async def test_reindex_to_another_dimension_and_backfill(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reindex to a 64-dim embedder writes 64-dim vectors and its own HNSW index; chunks
    whose embedding_vec is missing (written before the migration) are filled at startup."""
    async with pgvector_database(migrated=True) as url:
        settings = Settings(
            data_dir=tmp_path, database_url=url, knowledge=KnowledgeSettings(embedder="hashing")
        )
        async with running_app(settings) as started:
            http = started.http
            room = await create_room(http)
            place = f"rooms/{room['id']}"
            await ingested(http, place, "a.txt", b"Comets have icy nuclei.\n\n" * 40)
            await ingested(http, place, "b.txt", b"Glaciers carve valleys.")

        config = tmp_path / "pantheon.toml"
        config.write_text(TOML)
        monkeypatch.setenv("PANTHEON_DATABASE_URL", url)
        monkeypatch.setenv("PANTHEON_CONFIG_FILE", str(config))
        monkeypatch.setenv("PANTHEON_KNOWLEDGE__EMBEDDER", "small")
        assert await asyncio.to_thread(main, ["knowledge", "reindex"]) == 0

        engine = create_async_engine(url)
        try:
            async with engine.begin() as conn:
                dims = "SELECT DISTINCT vector_dims(embedding_vec) FROM chunks"
                assert (await conn.execute(text(dims))).scalars().all() == [64]
                await conn.execute(text("UPDATE chunks SET embedding_vec = NULL"))
        finally:
            await engine.dispose()

        small = settings.model_copy(
            update={"config_file": config, "knowledge": KnowledgeSettings(embedder="small")}
        )
        async with running_app(small) as started:  # startup fills embedding_vec again
            knowledge = (await started.http.get("/ready")).json()["knowledge"]
            assert (knowledge["vector_search"], knowledge["dim"]) == ("pgvector-hnsw", 64)
            hits = await search(started.http, place, "glacier valleys")
            assert hits[0]["filename"] == "b.txt"
            async with unit_of_work(started.app.state.services.db, write=False) as session:
                missing = "SELECT count(*) FROM chunks WHERE embedding_vec IS NULL"
                assert await session.scalar(text(missing)) == 0
                indexes = "SELECT indexname FROM pg_indexes WHERE indexname LIKE '%hnsw%'"
                names = set((await session.execute(text(indexes))).scalars())
                assert names == {index_name(384), index_name(64)}


async def test_role_that_may_not_create_the_extension_keeps_exact_search(
    tmp_path: Path,
) -> None:
    """A non-superuser migrating: 0006 warns and does nothing, /ready says exact-numpy."""
    async with pgvector_database() as url:
        role = f"pantheon_plain_{uuid.uuid4().hex[:8]}"
        name = url.rsplit("/", 1)[1]
        admin = create_async_engine(url)
        try:
            async with admin.begin() as conn:
                await conn.execute(text(f"CREATE ROLE {role} LOGIN PASSWORD 'plain'"))
                await conn.execute(text(f'ALTER DATABASE "{name}" OWNER TO {role}'))
                await conn.execute(text(f"ALTER SCHEMA public OWNER TO {role}"))
            plain = url.replace("//postgres:postgres@", f"//{role}:plain@", 1)
            await upgrade(plain)
            settings = Settings(
                data_dir=tmp_path,
                database_url=plain,
                knowledge=KnowledgeSettings(embedder="hashing"),
            )
            async with running_app(settings) as started:
                knowledge = (await started.http.get("/ready")).json()["knowledge"]
            assert knowledge["vector_search"] == "exact-numpy"
            assert knowledge["vector_search_reason"] == (
                "the vector extension is not installed in this database"
            )
        finally:
            await admin.dispose()
    cleanup = create_async_engine(url.rsplit("/", 1)[0] + "/postgres")
    try:
        async with cleanup.begin() as conn:
            await conn.execute(text(f"DROP ROLE IF EXISTS {role}"))
    finally:
        await cleanup.dispose()
