"""Health, readiness, the model list and the mode list."""

from __future__ import annotations

import httpx

from pantheon.db.migrations import downgrade
from pantheon.settings import Settings


async def test_health(client: httpx.AsyncClient) -> None:
    response = await client.get("/health")
    assert response.json() == {"status": "ok"}


async def test_ready_when_migrated(client: httpx.AsyncClient, backend: str) -> None:
    response = await client.get("/ready")
    assert response.status_code == 200
    body = response.json()
    knowledge = body.pop("knowledge")
    assert body == {"status": "ready", "live_turns": "in-process"}
    vector = {"vector_search": knowledge.pop("vector_search")}
    vector["vector_search_reason"] = knowledge.pop("vector_search_reason")
    assert knowledge == {
        "embedder": "hashing:char34-v1/384",
        "dim": 384,
        "keyword_search": "sqlite-fts5" if backend == "sqlite" else "postgres-tsvector",
    }
    if backend == "sqlite":
        assert vector == {
            "vector_search": "exact-numpy",
            "vector_search_reason": "sqlite has no pgvector",
        }
    elif vector["vector_search"] == "exact-numpy":  # tests/knowledge/test_pgvector.py: HNSW
        assert vector["vector_search_reason"]


async def test_ready_503_when_schema_behind(client: httpx.AsyncClient, settings: Settings) -> None:
    await downgrade(settings.resolved_database_url, "base")
    response = await client.get("/ready")
    assert response.status_code == 503
    assert "latest migration" in response.json()["detail"]


async def test_models_lists_builtin_scripted_alias(client: httpx.AsyncClient) -> None:
    body = (await client.get("/v1/models")).json()
    assert "scripted" in [m["name"] for m in body["items"]]
    assert body["total"] == len(body["items"])


async def test_modes_lists_every_spec(client: httpx.AsyncClient) -> None:
    response = await client.get("/v1/modes")
    assert response.status_code == 200
    body = response.json()
    names = [item["name"] for item in body["items"]]
    assert set(names) == {
        "standalone",
        "manual",
        "roundtable",
        "orchestrator",
        "pipeline",
        "review",
    }
    assert body["total"] == len(names)
    review = next(item for item in body["items"] if item["name"] == "review")
    assert review["constraints"]["min_agents"] == 2
    assert review["answer"] == "chosen_draft"
    manual = next(item for item in body["items"] if item["name"] == "manual")
    assert manual["constraints"]["needs_mentions"] is True
    assert manual["hint"].startswith("In manual mode")
    standalone = next(item for item in body["items"] if item["name"] == "standalone")
    assert standalone["constraints"]["session"] == "agent"


async def test_defaults_name_the_default_model_and_the_message_limit(
    client: httpx.AsyncClient, settings: Settings
) -> None:
    body = (await client.get("/v1/defaults")).json()
    assert body == {"default_model": "scripted", "max_message_chars": 32_000}
    assert body["max_message_chars"] == settings.turns.max_message_chars
    # The limit served is the one a turn is held to.
    room = (await client.post("/v1/rooms", json={"name": "Limits"})).json()
    agent = (
        await client.post("/v1/agents", json={"key": "lim", "name": "Lim", "role_prompt": "r"})
    ).json()
    await client.post(f"/v1/rooms/{room['id']}/agents", json={"agent_id": agent["id"]})
    session = (await client.post(f"/v1/rooms/{room['id']}/sessions", json={})).json()
    over = {"message": "x" * (body["max_message_chars"] + 1)}
    refused = await client.post(f"/v1/sessions/{session['id']}/turns", json=over)
    assert refused.status_code == 422
    assert refused.json()["limit"] == body["max_message_chars"]
