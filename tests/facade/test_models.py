"""GET /openai/v1/models and /models/{id}: the caller's rooms and agents, OpenAI-shaped."""

from __future__ import annotations

import uuid

import httpx
import openai
import pytest
from fastapi import FastAPI

from pantheon.db.base import utcnow
from pantheon.db.models import Agent
from pantheon.db.uow import unit_of_work
from tests.facade.conftest import user
from tests.factories import create_agent, create_room


async def test_models_list_rooms_then_agents_with_readable_names(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI
) -> None:
    room = await create_room(client, ["alpha"], name="Launch team", mode="orchestrator")
    await create_agent(client, "beta", name="Beta Writer")
    models = await oai.models.list()
    assert models.object == "list"
    ids = [m.id for m in models.data]
    assert ids == [f"room-{room['id']}", "agent-alpha", "agent-beta"]
    cards = {m.id: m.model_dump() for m in models.data}
    first = cards[f"room-{room['id']}"]
    assert first["object"] == "model"
    assert first["owned_by"] == "local"
    assert first["name"] == "Launch team (room, orchestrator)"
    assert first["mode"] == "orchestrator"
    assert isinstance(first["created"], int)
    assert cards["agent-beta"]["name"] == "Beta Writer (agent @beta)"
    assert cards["agent-beta"]["mode"] == "standalone"


async def test_model_by_id_echoes_the_id_and_404s_in_openai_shape(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI
) -> None:
    room = await create_room(client, ["alpha"])
    found = await oai.models.retrieve(f"room-{room['id']}")
    assert found.id == f"room-{room['id']}"
    assert (await oai.models.retrieve("agent-ALPHA")).id == "agent-ALPHA"
    for missing in ("room-nope", f"room-{uuid.uuid4()}", "agent-nobody", "gpt-4o", "agent-"):
        with pytest.raises(openai.NotFoundError) as raised:
            await oai.models.retrieve(missing)
        assert raised.value.code == "model_not_found"
        body = raised.value.body
        assert isinstance(body, dict)
        assert body == {
            "message": body["message"],
            "type": "invalid_request_error",
            "param": None,
            "code": "model_not_found",
        }
        assert missing in raised.value.message


async def test_deleted_rooms_and_agents_are_not_models(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI
) -> None:
    room = await create_room(client, ["alpha"])
    assert (await client.delete(f"/v1/rooms/{room['id']}")).status_code == 204
    assert (await client.delete(f"/v1/agents/{room['agents'][0]['agent_id']}")).status_code == 204
    assert (await oai.models.list()).data == []
    with pytest.raises(openai.NotFoundError):
        await oai.chat.completions.create(model=f"room-{room['id']}", messages=[user("hi")])


async def _duplicate_key(app: FastAPI, key: str) -> uuid.UUID:
    """A second live agent with ``key``: only possible outside the API (a race, a script)."""
    async with unit_of_work(app.state.services.db, write=True) as db:
        twin = Agent(
            owner_id=app.state.services.local_user_id, key=key, name="Twin", role_prompt="r",
            model="scripted", tools=[], created_at=utcnow(),
        )  # fmt: skip
        db.add(twin)
        await db.flush()
        return twin.id


async def test_a_key_shared_by_two_agents_is_ambiguous_and_ids_disambiguate(
    app: FastAPI, client: httpx.AsyncClient, oai: openai.AsyncOpenAI
) -> None:
    original = await create_agent(client, "alpha")
    twin_id = await _duplicate_key(app, "ALPHA")
    ids = [m.id for m in (await oai.models.list()).data]
    assert ids == [f"agent-{original['id']}", f"agent-{twin_id}"]
    with pytest.raises(openai.BadRequestError) as raised:
        await oai.chat.completions.create(model="agent-alpha", messages=[user("hi")])
    assert "ambiguous" in raised.value.message
    assert f"agent-{original['id']}" in raised.value.message
    assert f"agent-{twin_id}" in raised.value.message
    answer = await oai.chat.completions.create(model=f"agent-{twin_id}", messages=[user("hi")])
    assert answer.choices[0].message.content == "ALPHA: hi"
    twin = await oai.models.retrieve(f"agent-{twin_id}")
    assert twin.model_dump()["name"] == "Twin (agent @ALPHA)"
