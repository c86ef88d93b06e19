"""Per-user model allowlists: agents, manager models, turn preflight and the model list."""

from __future__ import annotations

from pantheon.db.uow import unit_of_work
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.users.repository import UserRepository
from pantheon.users.service import UserService
from tests.auth.conftest import Clients
from tests.factories import create_room, create_session


async def _restrict(users: Clients, name: str, models: list[str] | None) -> None:
    async with unit_of_work(users.app.state.services.db, write=True) as session:
        await UserService(UserRepository(session)).set_allowed_models(name, models)


async def test_models_list_shows_only_allowed_aliases(users: Clients) -> None:
    everything = await users.bob.get("/v1/models")
    assert [m["name"] for m in everything.json()["items"]] == ["cheap", "pricey", "scripted"]
    await _restrict(users, "bob", ["cheap", "gone"])
    listed = (await users.bob.get("/v1/models")).json()
    assert [m["name"] for m in listed["items"]] == ["cheap"]
    assert "base_url" not in str(listed)


async def test_agent_model_outside_the_allowlist_is_422(users: Clients) -> None:
    await _restrict(users, "alice", ["cheap"])
    body = {"key": "a", "name": "A", "role_prompt": "r"}
    denied = await users.alice.post("/v1/agents", json={**body, "model": "pricey"})
    assert denied.status_code == 422
    assert "allowed: cheap" in denied.json()["detail"]
    assert denied.json()["allowed_models"] == ["cheap"]
    default = await users.alice.post("/v1/agents", json=body)  # server default: scripted
    assert default.status_code == 422
    created = await users.alice.post("/v1/agents", json={**body, "model": "cheap"})
    assert created.status_code == 201
    patched = await users.alice.patch(
        f"/v1/agents/{created.json()['id']}", json={"model": "pricey"}
    )
    assert patched.status_code == 422
    unknown = await users.alice.post("/v1/agents", json={**body, "key": "b", "model": "nope"})
    assert unknown.status_code == 422
    assert "unknown model alias 'nope'" in unknown.json()["detail"]


async def test_room_manager_model_outside_the_allowlist_is_422(users: Clients) -> None:
    await _restrict(users, "alice", ["cheap"])
    denied = await users.alice.post("/v1/rooms", json={"name": "r", "manager_model": "pricey"})
    assert denied.status_code == 422
    assert "manager_model" in denied.json()["detail"]
    room = await users.alice.post("/v1/rooms", json={"name": "r", "manager_model": "cheap"})
    assert room.status_code == 201
    patched = await users.alice.patch(
        f"/v1/rooms/{room.json()['id']}", json={"manager_model": "pricey"}
    )
    assert patched.status_code == 422


async def test_turn_with_a_disallowed_model_is_422_before_any_llm_call(
    users: Clients, scripted: ScriptedProvider
) -> None:
    room = await create_room(users.alice, ["alpha"], mode="orchestrator", manager_model="pricey")
    session = await create_session(users.alice, room["id"])
    url = f"/v1/sessions/{session['id']}/turns"
    await _restrict(users, "alice", ["scripted"])  # agents use scripted; the manager pricey
    denied = await users.alice.post(url, json={"message": "hi"})
    assert denied.status_code == 422
    assert "'pricey' (manager)" in denied.json()["detail"]
    roundtable = await users.alice.post(url, json={"message": "hi", "mode": "roundtable"})
    assert roundtable.status_code == 201  # no manager in roundtable mode
    await _restrict(users, "alice", ["pricey"])
    calls = len(scripted.requests)
    denied = await users.alice.post(url, json={"message": "hi"})
    assert denied.status_code == 422
    assert "agent 'alpha'" in denied.json()["detail"]
    assert len(scripted.requests) == calls
    assert (await users.alice.get(url)).json()["total"] == 1
