"""Bad AG-UI requests get a clear error, never a 5xx: before the stream starts, a 4xx in
Pantheon's JSON shape naming the problem; once a run is under way, its ``RUN_ERROR``."""

from __future__ import annotations

import uuid

import httpx
import pytest

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.agui.conftest import post_run, run_events, run_input
from tests.auth.conftest import MakeClients
from tests.factories import create_room

UNKNOWN = "00000000-0000-4000-8000-000000000000"


async def _refused(
    client: httpx.AsyncClient, room_id: str, body: dict[str, object] | bytes, status: int
) -> str:
    response = await post_run(client, room_id, body)
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    detail: str = response.json()["detail"]
    return detail


@pytest.mark.parametrize(
    ("body", "named"),
    [
        (b"{not json", "not JSON"),
        (b"[" * 100_000 + b"]" * 100_000, "nests deeper"),  # refused before any parser
        (b'{"threadId": "\\ud800"}', "not JSON"),  # a lone surrogate: not storable text
        (b"[]", "no RunAgentInput"),
        (b'{"threadId": "t", "messages": []}', "runId"),
        (b'{"threadId": 5, "runId": "r", "messages": []}', "threadId"),
        (b'{"threadId": "x", "runId": "r", "messages": [{"role": "robot"}]}', "messages"),
    ],
)
async def test_unreadable_bodies_are_422_naming_the_problem(
    client: httpx.AsyncClient, body: bytes, named: str
) -> None:
    room = await create_room(client, ["alpha"])
    assert named in await _refused(client, room["id"], body, 422)


async def test_inputs_that_are_no_run_are_422(client: httpx.AsyncClient) -> None:
    room = await create_room(client, ["alpha"])
    rid = room["id"]
    assert "not a UUID" in await _refused(client, rid, run_input(thread="my-thread"), 422)
    assert "empty" in await _refused(client, rid, run_input(None), 422)
    spoken = run_input()
    spoken["messages"].append({"id": "a1", "role": "assistant", "content": "hi"})
    assert "'assistant' message" in await _refused(client, rid, spoken, 422)
    image = run_input()
    image["messages"][0]["content"] = [
        {"type": "image", "source": {"type": "url", "value": "http://x/y.png"}}
    ]
    assert "image" in await _refused(client, rid, image, 422)
    assert "message" in await _refused(client, rid, run_input("   "), 422)
    wrong_mode = run_input(forwardedProps={"pantheon": {"mode": "chaos"}})
    assert "mode" in await _refused(client, rid, wrong_mode, 422)
    unknown = run_input(forwardedProps={"pantheon": {"mode": "manual", "colour": 1, "agent": "a"}})
    assert "unknown turn option(s) agent, colour" in await _refused(client, rid, unknown, 422)
    not_options = run_input(forwardedProps={"pantheon": "roundtable"})
    assert "must be an object" in await _refused(client, rid, not_options, 422)
    assert "runId" in await _refused(client, rid, run_input(run="x" * 300), 422)
    assert "runId" in await _refused(client, rid, run_input(run="r\u0000n"), 422)


async def test_unknown_room_and_another_rooms_thread(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    assert "room" in await _refused(client, UNKNOWN, run_input(), 404)
    assert "room" in await _refused(client, "not-a-uuid", run_input(), 404)
    first = await create_room(client, ["alpha"])
    second = await create_room(client, ["beta"])
    body = run_input()
    await run_events(client, first["id"], body)
    other = run_input(thread=body["threadId"])
    assert "another room" in await _refused(client, second["id"], other, 422)
    resume = run_input(
        None, thread=str(uuid.uuid4()), resume=[{"interruptId": "c", "status": "cancelled"}]
    )
    assert "not one of your threads" in await _refused(client, first["id"], resume, 404)


async def test_a_refused_turn_is_the_runs_error(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    """A turn Pantheon refuses (here: a manual-mode message that tags no agent) is a lone
    RUN_ERROR with Pantheon's code and sentence."""
    room = await create_room(client, ["alpha"], mode="manual")
    [error] = await run_events(client, room["id"], run_input("nobody tagged"))
    assert (error["type"], error["code"]) == ("RUN_ERROR", "unprocessable")
    assert "alpha" in error["message"]
    # The thread opened for the refused run was removed again: no empty session is left.
    sessions = (await client.get(f"/v1/rooms/{room['id']}/sessions")).json()
    assert sessions["total"] == 0


async def test_keys_mode_missing_key_and_another_users_room_or_thread(
    make_clients: MakeClients, scripted: ScriptedProvider
) -> None:
    clients = await make_clients()
    room = await create_room(clients.alice, ["alpha"])
    body = run_input()
    response = await post_run(clients.anon, room["id"], body)
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")
    # Bob cannot see Alice's room, nor run his own room on Alice's thread.
    assert (await post_run(clients.bob, room["id"], body)).status_code == 404
    await run_events(clients.alice, room["id"], body)
    bobs = await create_room(clients.bob, ["beta"])
    stolen = run_input(thread=body["threadId"])
    detail = await _refused(clients.bob, bobs["id"], stolen, 404)
    assert "not one of your threads" in detail
    # Nor follow Alice's run by posting its ids again.
    assert (await post_run(clients.bob, bobs["id"], body)).status_code == 404
