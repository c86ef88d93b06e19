"""The ``search_knowledge`` tool function, called directly as the tool registry will."""

from __future__ import annotations

import inspect
import uuid

import httpx
import pytest
from fastapi import FastAPI

from pantheon.engine.tooling import ToolError, ToolScope
from pantheon.knowledge.tool import make_search_knowledge
from tests.factories import create_agent, create_room
from tests.knowledge.files import pdf_bytes
from tests.knowledge.helpers import ingested


def _scope(app: FastAPI, agent_id: str, room_id: str | None, owner: object = None) -> ToolScope:
    owner_id = str(owner if owner is not None else app.state.services.local_user_id)
    return ToolScope(owner_id, str(uuid.uuid4()), agent_id, "pilot", room_id)


async def test_finds_the_agents_and_the_rooms_documents_with_sources(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    agent = await create_agent(client, "pilot")
    room = await create_room(client)
    elsewhere = await create_room(client)
    pdf = pdf_bytes(["Checklist intro.", "Flaps set to fifteen degrees before takeoff."])
    await ingested(client, f"agents/{agent['id']}", "manual.pdf", pdf)
    await ingested(client, f"rooms/{room['id']}", "tower.txt", b"Runway 27 closes at dusk.")
    await ingested(client, f"rooms/{elsewhere['id']}", "other.txt", b"Runway 09 is reserved.")
    tool = make_search_knowledge(app.state.services.db, app.state.services.knowledge.embedder)

    text = await tool("flaps takeoff", scope=_scope(app, agent["id"], room["id"]))
    assert text.startswith("[1] manual.pdf, page 2\nFlaps set to fifteen degrees")
    runway = await tool("runway", limit=10, scope=_scope(app, agent["id"], room["id"]))
    assert "tower.txt" in runway
    assert "other.txt" not in runway
    standalone = await tool("runway", scope=_scope(app, agent["id"], None))
    assert "tower.txt" not in standalone


async def test_nothing_found_and_bad_input(app: FastAPI, client: httpx.AsyncClient) -> None:
    agent = await create_agent(client, "pilot")
    tool = make_search_knowledge(app.state.services.db, app.state.services.knowledge.embedder)
    scope = _scope(app, agent["id"], None)
    assert (await tool("anything", scope=scope)).startswith("No passages found for 'anything'")
    with pytest.raises(ToolError, match="query is empty"):
        await tool("   ", scope=scope)
    with pytest.raises(ToolError, match="longer than"):
        await tool("x" * 1001, scope=scope)
    with pytest.raises(ToolError, match="no valid owner"):
        await tool("x", scope=_scope(app, agent["id"], None, owner="not-a-uuid"))


async def test_another_owners_documents_stay_hidden(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    agent = await create_agent(client, "pilot")
    await ingested(client, f"agents/{agent['id']}", "secret.txt", b"The vault code is 4711.")
    tool = make_search_knowledge(app.state.services.db, app.state.services.knowledge.embedder)
    stranger = _scope(app, agent["id"], None, owner=uuid.uuid4())
    assert (await tool("vault code", scope=stranger)).startswith("No passages found")


def test_signature_is_what_the_tool_registry_reads(app: FastAPI) -> None:
    tool = make_search_knowledge(app.state.services.db, app.state.services.knowledge.embedder)
    parameters = inspect.signature(tool).parameters
    assert list(parameters) == ["query", "limit", "scope"]
    assert parameters["limit"].default == 5
    assert parameters["scope"].kind is inspect.Parameter.KEYWORD_ONLY
    assert tool.__name__ == "search_knowledge"
    assert "documents of this agent and of this room" in (tool.__doc__ or "")
