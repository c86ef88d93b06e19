"""Forking a session at a turn (POST /v1/sessions/{id}/fork): the fork's history is the
parent's up to that turn, read by reference, and no LLM call is made to fork."""

from __future__ import annotations

import asyncio
import uuid

import httpx
from fastapi import FastAPI

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.factories import create_agent, create_room, create_session
from tests.turns_api.approvals_helpers import agent_session, gated_agent
from tests.waiting import until


async def _turn(client: httpx.AsyncClient, session_id: str, message: str) -> str:
    response = await client.post(f"/v1/sessions/{session_id}/turns", json={"message": message})
    assert response.status_code == 201, response.text
    turn_id: str = response.json()["id"]
    return turn_id


async def _fork(client: httpx.AsyncClient, session_id: str, turn_id: str) -> httpx.Response:
    return await client.post(f"/v1/sessions/{session_id}/fork", json={"turn_id": turn_id})


def _prompt(scripted: ScriptedProvider) -> list[tuple[str, str]]:
    """The last request's conversation (system prompt left out)."""
    messages = scripted.requests[-1].request.messages
    return [(m.role, m.content) for m in messages if m.role != "system"]


async def _session_with(
    client: httpx.AsyncClient, messages: list[str], agent: str = "a"
) -> tuple[str, list[str]]:
    room = await create_room(client, [agent])
    session = await create_session(client, room["id"])
    turns = [await _turn(client, session["id"], text) for text in messages]
    return str(session["id"]), turns


async def test_fork_history_is_the_parent_up_to_the_turn(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    session_id, turns = await _session_with(client, ["one", "two", "three"])
    calls = len(scripted.requests)
    response = await _fork(client, session_id, turns[1])
    assert response.status_code == 201, response.text
    assert len(scripted.requests) == calls  # forking calls no model
    fork = response.json()
    parent = (await client.get(f"/v1/sessions/{session_id}")).json()
    assert fork["room_id"] == parent["room_id"]
    assert fork["title"] == f"Fork of {parent['title']} at turn 2" == "Fork of t at turn 2"
    assert (fork["parent_id"], fork["fork_turn_id"]) == (session_id, turns[1])
    assert (await client.get(f"/v1/sessions/{fork['id']}")).json() == fork
    await _turn(client, fork["id"], "four")
    assert _prompt(scripted) == [
        ("user", "one"),
        ("assistant", "a: one"),
        ("user", "two"),
        ("assistant", "a: two"),
        ("user", "four"),
    ]
    # The parent goes on unchanged: its history has "three" and not "four".
    await _turn(client, session_id, "five")
    assert [text for _, text in _prompt(scripted)][-3:] == ["three", "a: three", "five"]


async def test_fork_of_a_fork_and_at_an_inherited_turn(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    session_id, turns = await _session_with(client, ["one", "two"])
    fork = (await _fork(client, session_id, turns[1])).json()
    three = await _turn(client, fork["id"], "three")
    deeper = (await _fork(client, fork["id"], three)).json()
    # Named after the first source, at the turn's number in the fork's whole history.
    assert deeper["title"] == "Fork of t at turn 3"
    await _turn(client, deeper["id"], "four")
    assert [text for role, text in _prompt(scripted) if role == "user"] == [
        "one",
        "two",
        "three",
        "four",
    ]
    # A turn the fork inherited: the new fork hangs off the session that holds it.
    inherited = await _fork(client, fork["id"], turns[0])
    assert inherited.status_code == 201, inherited.text
    assert (inherited.json()["parent_id"], inherited.json()["fork_turn_id"]) == (
        session_id,
        turns[0],
    )
    await _turn(client, inherited.json()["id"], "again")
    assert [text for role, text in _prompt(scripted) if role == "user"] == ["one", "again"]


async def test_fork_of_an_agent_session_stays_on_the_agent(client: httpx.AsyncClient) -> None:
    agent = await create_agent(client, "solo")
    created = await client.post(f"/v1/agents/{agent['id']}/sessions", json={"title": "Plans"})
    session_id = created.json()["id"]
    turn = await _turn(client, session_id, "hello")
    fork = (await _fork(client, session_id, turn)).json()
    assert (fork["agent_id"], fork["room_id"], fork["title"]) == (
        agent["id"],
        None,
        "Fork of Plans at turn 1",
    )
    listed = (await client.get(f"/v1/agents/{agent['id']}/sessions")).json()
    assert {s["id"] for s in listed["items"]} == {session_id, fork["id"]}


async def test_fork_errors(client: httpx.AsyncClient) -> None:
    session_id, turns = await _session_with(client, ["one"])
    other_id, other_turns = await _session_with(client, ["elsewhere"], agent="b")
    missing_session = await _fork(client, str(uuid.uuid4()), turns[0])
    assert missing_session.status_code == 404
    missing_turn = await _fork(client, session_id, str(uuid.uuid4()))
    assert missing_turn.status_code == 404
    assert "turn" in missing_turn.json()["detail"]
    foreign = await _fork(client, session_id, other_turns[0])
    assert foreign.status_code == 422
    assert "not in the history" in foreign.json()["detail"]
    malformed = await client.post(f"/v1/sessions/{session_id}/fork", json={"turn_id": "x"})
    assert malformed.status_code == 422
    extra = await client.post(
        f"/v1/sessions/{session_id}/fork", json={"turn_id": turns[0], "title": "t"}
    )
    assert extra.status_code == 422
    await client.delete(f"/v1/sessions/{other_id}")
    assert (await _fork(client, session_id, other_turns[0])).status_code == 404


async def test_fork_at_a_running_turn_is_409(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    session_id, _turns = await _session_with(client, [])
    other_id, _ = await _session_with(client, [], agent="b")
    scripted.script("slow", agent="a", delay_s=60)  # held until cancelled below
    url = f"/v1/sessions/{session_id}/turns"
    running_post = asyncio.create_task(client.post(url, json={"message": "first"}))
    await until(app.state.services.live_turns.running)
    (running,) = app.state.services.live_turns.running()
    busy = await _fork(client, session_id, running.turn_id)
    assert busy.status_code == 409
    assert "still running" in busy.json()["detail"]
    assert (await _fork(client, other_id, running.turn_id)).status_code == 422
    assert (await client.post(f"/v1/turns/{running.turn_id}/cancel")).status_code == 200
    assert (await running_post).status_code == 201
    assert (await _fork(client, session_id, running.turn_id)).status_code == 201


async def test_fork_at_a_turn_awaiting_approval_is_409(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script(gated_agent, agent="calc")
    session_id = await agent_session(client, ["calculator!"])
    paused = await client.post(f"/v1/sessions/{session_id}/turns", json={"message": "17*23?"})
    assert paused.json()["status"] == "awaiting_approval"
    refused = await _fork(client, session_id, paused.json()["id"])
    assert refused.status_code == 409
    assert "awaiting approval" in refused.json()["detail"]
