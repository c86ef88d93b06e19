"""Turns in a shared room: a viewer opens sessions of their own there and runs the owner's
agents, spending their own budget; sessions stay their opener's; a member who is removed
loses the sessions they opened there at once. Runs on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio

import httpx

from pantheon.llm.providers.scripted import ScriptedProvider, ScriptedReply, tool_call
from pantheon.llm.types import LLMRequest
from tests.auth.conftest import Clients
from tests.auth.sharing_helpers import shared_with
from tests.factories import add_to_room, create_agent, create_room, create_session
from tests.knowledge.helpers import ingested


async def _turn(http: httpx.AsyncClient, session_id: str, message: str = "hi") -> httpx.Response:
    return await http.post(f"/v1/sessions/{session_id}/turns", json={"message": message})


async def test_a_viewer_runs_the_owners_agents_in_a_session_of_their_own(
    users: Clients, scripted: ScriptedProvider
) -> None:
    scripted.script("alpha here", agent="alpha")
    room = await create_room(users.alice, ["alpha"])
    alice_session = await create_session(users.alice, room["id"])
    vera = await shared_with(users, room["id"], "vera", "viewer")
    mine = await create_session(vera.http, room["id"])
    done = await _turn(vera.http, mine["id"])
    assert done.status_code == 201, done.text
    assert done.json()["status"] == "completed"
    assert [m["content"] for m in done.json()["messages"][1:]] == ["alpha here"]
    # a session is its opener's, in a shared room as everywhere
    assert (await users.alice.get(f"/v1/sessions/{mine['id']}")).status_code == 404
    assert (await _turn(users.alice, mine["id"])).status_code == 404
    assert (await vera.http.get(f"/v1/sessions/{alice_session['id']}")).status_code == 404
    assert (await _turn(vera.http, alice_session["id"])).status_code == 404
    listed = await vera.http.get(f"/v1/rooms/{room['id']}/sessions")
    assert [s["id"] for s in listed.json()["items"]] == [mine["id"]]
    theirs = await users.alice.get(f"/v1/rooms/{room['id']}/sessions")
    assert [s["id"] for s in theirs.json()["items"]] == [alice_session["id"]]
    # room usage shows each member their own spending only
    vera_usage = (await vera.http.get(f"/v1/rooms/{room['id']}/usage")).json()
    alice_usage = (await users.alice.get(f"/v1/rooms/{room['id']}/usage")).json()
    assert vera_usage["turns"] == 1
    assert alice_usage["turns"] == 0
    await vera.http.aclose()


async def test_a_viewer_spends_their_own_budget(users: Clients) -> None:
    room = await create_room(users.alice)
    agent = await create_agent(users.alice, "counter", model="cheap")
    await add_to_room(users.alice, room["id"], agent["id"])
    vera = await shared_with(users, room["id"], "vera", "viewer")
    first = await _turn(vera.http, (await create_session(vera.http, room["id"]))["id"])
    cost = first.json()["usage"]["cost_usd"]
    assert cost > 0
    budget = await users.root.put(f"/v1/admin/users/{vera.id}/budgets", json={"daily_usd": cost})
    assert budget.status_code == 200, budget.text
    refused = await _turn(vera.http, (await create_session(vera.http, room["id"]))["id"])
    assert refused.status_code == 402, refused.text
    assert refused.json()["code"] == "budget_exceeded"
    # the owner's own budget is untouched: her turn in the same room runs
    owner_turn = await _turn(users.alice, (await create_session(users.alice, room["id"]))["id"])
    assert owner_turn.status_code == 201, owner_turn.text
    # a room budget for a member names the shared room (404 for a room they cannot see)
    scoped = await users.root.put(
        f"/v1/admin/users/{vera.id}/budgets", json={"room_id": room["id"], "daily_usd": 1.0}
    )
    assert scoped.status_code == 200, scoped.text
    bob_id = (await users.bob.get("/v1/me")).json()["id"]
    hidden = await users.root.put(
        f"/v1/admin/users/{bob_id}/budgets", json={"room_id": room["id"], "daily_usd": 1.0}
    )
    assert hidden.status_code == 404
    await vera.http.aclose()


async def test_a_removed_member_loses_the_sessions_they_opened(
    users: Clients, scripted: ScriptedProvider
) -> None:
    room = await create_room(users.alice, ["alpha"])
    eddie = await shared_with(users, room["id"], "eddie", "editor")
    session = await create_session(eddie.http, room["id"])
    assert (await _turn(eddie.http, session["id"])).status_code == 201
    calls = len(scripted.requests)
    removed = await users.alice.delete(f"/v1/rooms/{room['id']}/members/{eddie.id}")
    assert removed.status_code == 204
    assert (await eddie.http.get(f"/v1/sessions/{session['id']}")).status_code == 404
    assert (await _turn(eddie.http, session["id"])).status_code == 404
    assert (await eddie.http.get(f"/v1/sessions/{session['id']}/messages")).status_code == 404
    assert len(scripted.requests) == calls
    await eddie.http.aclose()


def _librarian(request: LLMRequest) -> ScriptedReply:
    last = request.messages[-1]
    if last.role == "tool":
        return ScriptedReply(f"Found: {last.content[:200]}")
    return ScriptedReply("Searching.", (tool_call("search_knowledge", {"query": "saffron"}),))


async def test_a_viewers_turn_searches_the_shared_rooms_documents(
    users: Clients, scripted: ScriptedProvider
) -> None:
    room = await create_room(users.alice)
    agent = await create_agent(users.alice, "lib", tools=["search_knowledge"])
    await add_to_room(users.alice, room["id"], agent["id"])
    await ingested(users.alice, f"rooms/{room['id']}", "recipe.txt", b"The recipe uses saffron.")
    await ingested(users.alice, f"agents/{agent['id']}", "lib.txt", b"Saffron is in the tin.")
    scripted.script(_librarian, agent="lib")
    vera = await shared_with(users, room["id"], "vera", "viewer")
    listed = await vera.http.get(f"/v1/rooms/{room['id']}/documents")
    assert [d["filename"] for d in listed.json()["items"]] == ["recipe.txt"]
    done = await _turn(vera.http, (await create_session(vera.http, room["id"]))["id"])
    assert done.status_code == 201, done.text
    answer = done.json()["messages"][-1]["content"]
    assert "recipe.txt" in answer
    assert "lib.txt" in answer  # the room's agent brings its own documents
    # but the agent itself stays alice's: not listed, not readable, not searchable directly
    assert (await vera.http.get(f"/v1/agents/{agent['id']}")).status_code == 404
    assert (await vera.http.get(f"/v1/agents/{agent['id']}/documents")).status_code == 404
    await vera.http.aclose()


async def test_a_viewer_evaluates_a_shared_room_in_sessions_of_their_own(
    users: Clients, scripted: ScriptedProvider
) -> None:
    room = await create_room(users.alice, ["alpha"])
    vera = await shared_with(users, room["id"], "vera", "viewer")
    scripted.script("alpha answers", agent="alpha")
    case = {"id": "c", "message": "hi", "facts": ["answers"]}
    dataset = await vera.http.post("/v1/evals/datasets", json={"name": "d", "cases": [case]})
    assert dataset.status_code == 201, dataset.text
    body = {"dataset_id": dataset.json()["id"], "targets": [{"room_id": room["id"]}]}
    run = await vera.http.post("/v1/evals", json=body)
    assert run.status_code == 202, run.text
    for _ in range(1000):  # bounded: one scripted case
        state = (await vera.http.get(f"/v1/evals/{run.json()['id']}")).json()["status"]
        if state != "running":
            break
        await asyncio.sleep(0.01)
    assert state == "completed"
    sessions = f"/v1/rooms/{room['id']}/sessions?include_evals=true"
    assert len((await vera.http.get(sessions)).json()["items"]) == 1
    assert (await users.alice.get(sessions)).json()["items"] == []
    bob_run = await users.bob.post("/v1/evals", json={**body, "dataset_id": dataset.json()["id"]})
    assert bob_run.status_code == 404  # neither the dataset nor the room is bob's
    await vera.http.aclose()
