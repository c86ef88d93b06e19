"""Idempotency under a storm of same-key retries on one replica: whatever the timing, a
key names one turn, every retry gets it, and the model is called for it once."""

from __future__ import annotations

import asyncio

import httpx
from fastapi import FastAPI

from pantheon.live.registry import LiveTurnRegistry
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.settings import LimitSettings, Settings
from tests.factories import create_room, create_session
from tests.turns_api.apps import running_client
from tests.waiting import until

ROUNDS = 25
CONCURRENT = 12


async def test_concurrent_same_key_posts_make_one_turn_and_one_model_call(
    settings: Settings, scripted: ScriptedProvider
) -> None:
    unlimited = settings.model_copy(update={"limits": LimitSettings(turns_per_minute=10_000)})
    async with running_client(unlimited, scripted) as client:
        await _storm(client, scripted)


async def _storm(client: httpx.AsyncClient, scripted: ScriptedProvider) -> None:
    room = await create_room(client, ["alpha"])
    for round_no in range(ROUNDS):
        session = (await create_session(client, room["id"]))["id"]
        scripted.reset()
        url = f"/v1/sessions/{session}/turns"
        headers = {"Idempotency-Key": f"storm-{round_no}"}
        posts = [
            client.post(url, json={"message": "hi"}, headers=headers) for _ in range(CONCURRENT)
        ]
        responses = await asyncio.gather(*posts)
        assert [r.status_code for r in responses] == [201] * CONCURRENT, [
            r.text for r in responses if r.status_code != 201
        ]
        assert len({r.json()["id"] for r in responses}) == 1
        assert len(scripted.calls(agent="alpha")) == 1, f"round {round_no}: model called twice"
        listed = (await client.get(f"/v1/sessions/{session}/turns")).json()
        assert listed["total"] == 1


async def test_an_empty_idempotency_key_is_no_key(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    room = await create_room(client, ["alpha"])
    session = (await create_session(client, room["id"]))["id"]
    url = f"/v1/sessions/{session}/turns"
    first = await client.post(url, json={"message": "a"}, headers={"Idempotency-Key": ""})
    second = await client.post(url, json={"message": "b"}, headers={"Idempotency-Key": ""})
    assert first.status_code == second.status_code == 201
    assert first.json()["id"] != second.json()["id"]


async def test_a_running_turn_is_found_by_its_upper_case_id(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script("slow", agent="alpha", delay_s=1.0)
    room = await create_room(client, ["alpha"])
    session = (await create_session(client, room["id"]))["id"]
    post = asyncio.create_task(client.post(f"/v1/sessions/{session}/turns", json={"message": "hi"}))
    registry: LiveTurnRegistry = app.state.services.live_turns
    await until(registry.running)
    upper = registry.running()[0].turn_id.upper()
    assert (await client.get(f"/v1/turns/{upper}")).status_code == 409  # running, not 404
    cancelled = await client.post(f"/v1/turns/{upper}/cancel")
    assert cancelled.status_code == 200
    assert cancelled.json()["status"] == "cancelled"
    await post
