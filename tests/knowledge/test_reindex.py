"""``pantheon knowledge reindex`` re-embeds chunks after the embedder changed."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select

from pantheon.db.models import Chunk
from pantheon.db.uow import unit_of_work
from pantheon.server.cli import main
from pantheon.settings import KnowledgeSettings, Settings
from tests.app_factory import running_app
from tests.factories import create_room
from tests.knowledge.helpers import ingested

TOML = '[embedders.small]\nprovider = "hashing"\ndim = 64\n'


async def _embedders(settings: Settings) -> set[tuple[str, int]]:
    async with (
        running_app(settings) as started,
        unit_of_work(started.app.state.services.db, write=False) as session,
    ):
        rows = await session.execute(select(Chunk.embedder, Chunk.dim))
        return {(name, dim) for name, dim in rows}


async def test_reindex_moves_every_chunk_to_the_new_embedder(
    settings: Settings, client: httpx.AsyncClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    room = await create_room(client)
    place = f"rooms/{room['id']}"
    await ingested(client, place, "a.txt", b"Comets have icy nuclei.\n\n" * 40)
    await ingested(client, place, "b.txt", b"Glaciers carve valleys.")
    assert await _embedders(settings) == {("hashing:char34-v1/384", 384)}

    config = tmp_path / "pantheon.toml"
    config.write_text(TOML)
    monkeypatch.setenv("PANTHEON_DATABASE_URL", settings.resolved_database_url)
    monkeypatch.setenv("PANTHEON_CONFIG_FILE", str(config))
    monkeypatch.setenv("PANTHEON_KNOWLEDGE__EMBEDDER", "small")
    monkeypatch.setenv("PANTHEON_KNOWLEDGE__EMBED_BATCH", "2")
    assert await asyncio.to_thread(main, ["knowledge", "reindex"]) == 0

    changed = settings.model_copy(
        update={"config_file": config, "knowledge": KnowledgeSettings(embedder="small")}
    )
    assert await _embedders(changed) == {("small:char34-v1/64", 64)}
    async with running_app(changed) as started:
        ready = (await started.http.get("/ready")).json()
        assert ready["knowledge"]["embedder"] == "small:char34-v1/64"
        hits = (await started.http.get(f"/v1/{place}/knowledge/search?q=glacier+valleys")).json()
        assert hits["items"][0]["filename"] == "b.txt"
