"""The room's description is its purpose: every agent and the manager read it in their
system prompt, in every mode."""

from __future__ import annotations

import httpx
import pytest

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.factories import create_agent, create_room, create_session

PURPOSE = "Plan the Lisbon offsite for twelve engineers"


@pytest.mark.parametrize(
    ("mode", "purposes"),
    [
        ("orchestrator", {"route", "specialist", "evaluate", "synthesis"}),
        ("roundtable", {"specialist"}),
        ("manual", {"specialist"}),
        ("pipeline", {"stage"}),
        ("review", {"draft", "review"}),
    ],
)
async def test_every_system_prompt_carries_the_room_purpose(
    client: httpx.AsyncClient, scripted: ScriptedProvider, mode: str, purposes: set[str]
) -> None:
    scripted.script('{"agents": ["alpha", "beta"]}', purpose="route")
    scripted.script('{"continue": true}', purpose="evaluate", times=1)
    room = await create_room(client, ["alpha", "beta"], mode=mode, description=PURPOSE)
    session = await create_session(client, room["id"])
    response = await client.post(
        f"/v1/sessions/{session['id']}/turns", json={"message": "@alpha @beta go"}
    )
    assert response.status_code == 201, response.text
    assert {call.request.purpose for call in scripted.requests} == purposes
    for call in scripted.requests:
        system = call.request.messages[0]
        assert system.role == "system"
        assert f"The purpose of this room: {PURPOSE}" in system.content, call.request.purpose


async def test_without_a_description_no_purpose_line(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    room = await create_room(client, ["alpha"], mode="roundtable")
    session = await create_session(client, room["id"])
    await client.post(f"/v1/sessions/{session['id']}/turns", json={"message": "go"})
    agent = await create_agent(client, "solo")
    solo = (await client.post(f"/v1/agents/{agent['id']}/sessions")).json()
    await client.post(f"/v1/sessions/{solo['id']}/turns", json={"message": "go"})
    assert len(scripted.requests) == 2
    assert all(
        "purpose of this room" not in c.request.messages[0].content for c in scripted.requests
    )
