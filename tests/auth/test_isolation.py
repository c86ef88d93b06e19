"""Object-level authorization: bob walks every API route with alice's ids.

Every route of the OpenAPI schema except the public ones is called as bob with alice's
room, agent, session, turn and user ids. Id-bearing routes must answer 404 (admin routes
403), collection routes must not show alice's data, and afterwards alice's resources read
exactly as before and no LLM was called. A route added without a case here fails the test.
The OpenAI facade's routes are walked too: bob's chat completion names alice's room as
its ``model`` (in the body), and ``GET /openai/v1/models/{model_id}`` gets her room.
Members of alice's room (a viewer, an editor) walk every route in
``test_isolation_members.py``, with the helpers here.
"""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from typing import Any

import httpx
from sqlalchemy import select

from pantheon.db.models import ApiKey, User
from pantheon.db.uow import unit_of_work
from pantheon.llm.providers.scripted import ScriptedProvider
from tests.auth.conftest import Clients
from tests.factories import create_agent, create_room, create_session
from tests.knowledge.helpers import settled

# A share link's snapshot needs no key: its token is the credential (tests/sessions).
PUBLIC = {
    ("GET", "/health"),
    ("GET", "/ready"),
    ("POST", "/auth/login"),
    ("POST", "/auth/invite"),
    ("GET", "/auth/providers"),
    ("GET", "/auth/oidc/{name}/login"),
    ("GET", "/auth/oidc/{name}/callback"),
    ("GET", "/v1/shared/{token}"),
    ("GET", "/v1/connections/{server}/callback"),  # the state is the credential (ADR 0046)
}
# The caller's own account: bob's key reaches only bob (no password: the change is refused).
OWN = {("GET", "/v1/me"): 200, ("POST", "/auth/logout"): 204, ("POST", "/v1/me/password"): 403}
ADMIN_ONLY = {("GET", "/metrics")}  # outside /v1/admin/, for admins too (docs/observability.md)
COLLECTIONS = {
    ("GET", "/v1/rooms"),
    ("POST", "/v1/rooms"),
    ("GET", "/v1/agents"),
    ("POST", "/v1/agents"),
    ("GET", "/v1/models"),
    ("GET", "/v1/tools"),  # the deployment's catalog: no user's data in it
    ("GET", "/v1/modes"),  # and the server's own catalogues
    ("GET", "/v1/error-codes"),
    ("GET", "/v1/defaults"),
    ("GET", "/openai/v1/models"),
    ("GET", "/v1/evals"),
    ("GET", "/v1/evals/datasets"),
    ("POST", "/v1/evals/datasets"),
    ("GET", "/v1/people"),  # people to share with: bob finds only himself by his name
    ("GET", "/v1/connections"),  # bob's own MCP OAuth connections (tests/tools/test_mcp_oauth.py)
}
EVAL_CASE = {"id": "c", "message": "secret?", "facts": ["saffron"]}
BODIES: dict[tuple[str, str], dict[str, Any]] = {
    ("POST", "/v1/rooms"): {"name": "Bob's room"},
    ("POST", "/v1/agents"): {"key": "mallory", "name": "M", "role_prompt": "You are M."},
    ("PATCH", "/v1/rooms/{room_id}"): {"name": "taken over", "mode": "manual"},
    ("PATCH", "/v1/agents/{agent_id}"): {"name": "taken over", "role_prompt": "Leak."},
    ("POST", "/v1/rooms/{room_id}/agents"): {"agent_id": "BOB_AGENT"},
    ("POST", "/v1/rooms/{room_id}/sessions"): {"title": "intruder"},
    ("POST", "/v1/agents/{agent_id}/sessions"): {"title": "intruder"},
    ("POST", "/v1/sessions/{session_id}/turns"): {"message": "@alpha tell me secrets"},
    ("POST", "/openai/v1/chat/completions"): {
        "model": "room-{room_id}",
        "messages": [{"role": "user", "content": "@alpha tell me secrets"}],
    },
    ("POST", "/openai/v1/responses"): {"model": "room-{room_id}", "input": "@alpha secrets"},
    ("PATCH", "/v1/sessions/{session_id}"): {"title": "taken over"},
    ("POST", "/v1/sessions/{session_id}/fork"): {"turn_id": "{turn_id}"},
    ("POST", "/v1/turns/{turn_id}/approvals"): {"decisions": [{"call_id": "c", "approve": True}]},
    ("POST", "/v1/evals/datasets"): {"name": "bob's", "cases": [EVAL_CASE]},
    ("POST", "/v1/me/password"): {"current": "not bob's password", "new": "a long new passphrase"},
    ("POST", "/v1/evals"): {"dataset_id": "{dataset_id}", "targets": [{"room_id": "{room_id}"}]},
    ("PUT", "/v1/rooms/{room_id}/members/{user_id}"): {"role": "editor"},
}
# Multipart uploads and query strings, so bob's requests are valid and reach the owner check.
FILES = {("POST", p): {"file": ("bob.txt", b"bob's notes")} for p in (
    "/v1/rooms/{room_id}/documents", "/v1/agents/{agent_id}/documents",
)}  # fmt: skip
PARAMS = {("GET", p): {"q": "secret"} for p in (
    "/v1/rooms/{room_id}/knowledge/search", "/v1/agents/{agent_id}/knowledge/search",
)} | {("GET", "/v1/people"): {"q": "bob"}}  # fmt: skip


async def alice_world(users: Clients) -> dict[str, str]:
    alice = users.alice
    room = await create_room(alice, ["alpha"])
    agent_id = str(room["agents"][0]["agent_id"])
    session = await create_session(alice, room["id"])
    solo = await alice.post(f"/v1/agents/{agent_id}/sessions", json={})
    turn = await alice.post(f"/v1/sessions/{session['id']}/turns", json={"message": "secret"})
    assert turn.status_code == 201, turn.text
    async with unit_of_work(users.app.state.services.db, write=False) as db:
        alice_id = await db.scalar(select(User.id).where(User.login == "alice"))
        key_id = await db.scalar(select(ApiKey.id).where(ApiKey.user_id == alice_id))
    files = {"file": ("secret.txt", b"The secret recipe uses saffron.")}
    document = await alice.post(f"/v1/rooms/{room['id']}/documents", files=files)
    assert document.status_code == 202, document.text
    assert (await settled(alice, document.json()["id"]))["status"] == "ready"
    return {
        "room_id": room["id"],
        "agent_id": agent_id,
        "session_id": session["id"],
        "solo_session_id": solo.json()["id"],
        "turn_id": turn.json()["id"],
        "message_id": turn.json()["messages"][1]["id"],
        "user_id": str(alice_id),
        "key_id": str(key_id),
        "server": "alices-files",  # no oauth server here: the routes answer 404
        "pin_id": str(uuid.uuid4()),  # admin routes: refused before any pin is looked up
        "document_id": document.json()["id"],
        "model_id": f"room-{room['id']}",
        "response_id": f"resp_{turn.json()['id']}",  # a turn is a Responses API response too
        **await _alice_eval(alice, room["id"]),
    }


async def _alice_eval(alice: httpx.AsyncClient, room_id: str) -> dict[str, str]:
    """Alice's dataset and a finished eval run over her room."""
    dataset = await alice.post("/v1/evals/datasets", json={"name": "a", "cases": [EVAL_CASE]})
    body = {"dataset_id": dataset.json()["id"], "targets": [{"room_id": room_id}]}
    run = await alice.post("/v1/evals", json=body)
    assert run.status_code == 202, run.text
    for _ in range(1000):  # bounded: one scripted case
        if (await alice.get(f"/v1/evals/{run.json()['id']}")).json()["status"] != "running":
            break
        await asyncio.sleep(0.01)
    return {"dataset_id": dataset.json()["id"], "run_id": run.json()["id"]}


async def snapshot(alice: httpx.AsyncClient, ids: dict[str, str]) -> list[Any]:
    paths = [
        "/v1/rooms",
        "/v1/agents",
        "/v1/rooms/{room_id}",
        "/v1/rooms/{room_id}/sessions",
        "/v1/agents/{agent_id}",
        "/v1/sessions/{session_id}",
        "/v1/sessions/{solo_session_id}",
        "/v1/sessions/{session_id}/messages",
        "/v1/sessions/{session_id}/turns",
        "/v1/turns/{turn_id}",
        "/v1/turns/{turn_id}/events",
        "/v1/documents/{document_id}",
        "/v1/rooms/{room_id}/documents",
        "/v1/rooms/{room_id}/knowledge/search?q=saffron",
        "/v1/evals/{run_id}",
        "/v1/evals/{run_id}/report",
        "/v1/evals/datasets/{dataset_id}",
    ]
    state = []
    for path in paths:
        response = await alice.get(path.format(**ids))
        assert response.status_code == 200, (path, response.text)
        state.append(response.text if "events" in path else response.json())
    return state


def schema_routes(users: Clients) -> set[tuple[str, str]]:
    paths = users.app.openapi()["paths"]
    return {(m.upper(), p) for p, ops in paths.items() for m in ops if m != "parameters"}


async def call_as(
    http: httpx.AsyncClient, method: str, path: str, ids: dict[str, str], own_agent: str
) -> tuple[str, httpx.Response]:
    """Call one route as the client ``http`` with alice's ids (``own_agent``: the caller's
    agent, for bodies that name one); what was sent, and the response."""
    url = re.sub(r"\{(\w+)\}", lambda m: ids[m.group(1)], path)
    body = BODIES.get((method, path))
    if body is not None and "agent_id" in body:
        body = {**body, "agent_id": own_agent}
    if body is not None and "dataset_id" in body:  # an eval run names alice's dataset and room
        body = json.loads(json.dumps(body).replace("{dataset_id}", ids["dataset_id"]))
        body = json.loads(json.dumps(body).replace("{room_id}", ids["room_id"]))
    if body is not None and "turn_id" in body:  # a fork names alice's turn
        body = {**body, "turn_id": ids["turn_id"]}
    if body is not None and "model" in body:  # the facade names alice's room in the body
        body = {**body, "model": str(body["model"]).format(**ids)}
    sent = url + json.dumps(body)
    files, params = FILES.get((method, path)), PARAMS.get((method, path))
    if files is not None:
        return sent, await http.request(method, url, files=files)
    return sent, await http.request(method, url, json=body, params=params)


async def test_bob_gets_404_for_every_route_with_alices_ids(
    users: Clients, scripted: ScriptedProvider
) -> None:
    ids = await alice_world(users)
    bob_agent = (await create_agent(users.bob, "bobby"))["id"]
    before = await snapshot(users.alice, ids)
    calls_before = len(scripted.requests)
    walked: set[tuple[str, str]] = set()
    for method, path in sorted(schema_routes(users) - PUBLIC):
        sent, response = await call_as(users.bob, method, path, ids, bob_agent)
        walked.add((method, path))
        if path.startswith("/v1/admin/") or (method, path) in ADMIN_ONLY:
            assert response.status_code == 403, (method, path, response.text)
        elif (method, path) in OWN:
            assert response.status_code == OWN[method, path], (method, path, response.text)
            assert not any(v in response.text for v in ids.values()), (method, path)
        elif (method, path) in COLLECTIONS:
            assert response.status_code in (200, 201), (method, path, response.text)
            assert not any(v in response.text for v in ids.values()), (method, path)
        else:
            assert response.status_code == 404, (method, path, response.text)
            # the 404 may echo the id bob sent, never any other of alice's ids
            assert not any(v in response.text for v in ids.values() if v not in sent)
    assert walked == schema_routes(users) - PUBLIC
    assert len(scripted.requests) == calls_before, "bob's requests reached an LLM"
    assert await snapshot(users.alice, ids) == before


async def test_alices_agent_cannot_join_bobs_room(users: Clients) -> None:
    alice_room = await create_room(users.alice, ["alpha"])
    alice_agent = alice_room["agents"][0]["agent_id"]
    bob_room = await create_room(users.bob)
    added = await users.bob.post(
        f"/v1/rooms/{bob_room['id']}/agents", json={"agent_id": alice_agent}
    )
    assert added.status_code == 404
    assert added.json()["code"] == "not_found"
    assert "alpha" not in added.text  # nothing about the agent beyond the id bob sent
    removed = await users.bob.delete(f"/v1/rooms/{bob_room['id']}/agents/{alice_agent}")
    assert removed.status_code == 404
    bob_view = await users.bob.get(f"/v1/rooms/{bob_room['id']}")
    assert bob_view.json()["agents"] == []


async def test_running_turn_is_invisible_to_bob(users: Clients, scripted: ScriptedProvider) -> None:
    scripted.script("slow answer", agent="alpha", delay_s=0.5)
    room = await create_room(users.alice, ["alpha"])
    session = await create_session(users.alice, room["id"])
    url = f"/v1/sessions/{session['id']}/turns"
    task = asyncio.create_task(users.alice.post(url, json={"message": "hi"}))
    for _ in range(500):  # the turn is registered within a few event-loop iterations
        if users.app.state.services.live_turns.running():
            break
        await asyncio.sleep(0.01)
    turn_id = users.app.state.services.live_turns.running()[0].turn_id
    assert (await users.bob.get(f"/v1/turns/{turn_id}")).status_code == 404
    assert (await users.bob.get(f"/v1/turns/{turn_id}/events")).status_code == 404
    assert (await users.bob.post(f"/v1/turns/{turn_id}/cancel")).status_code == 404
    response = await task
    assert response.status_code == 201
    assert response.json()["status"] == "completed"
