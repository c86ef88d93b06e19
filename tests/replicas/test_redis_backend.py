"""The Redis backend in one process (the ASGI app, no server): the promises clients rely
on hold as with the in-process registry."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI
from redis.asyncio import Redis

from pantheon.live.redis.backend import RedisLiveBackend
from pantheon.live.registry import LiveTurn
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.settings import Settings
from tests.app_factory import AppWith
from tests.factories import create_room, create_session
from tests.redis_server import RedisServer
from tests.waiting import until

pytestmark = [pytest.mark.redis, pytest.mark.parametrize("backend", ["sqlite"], indirect=True)]


@pytest.fixture
async def shared(
    app_with: AppWith, redis: RedisServer
) -> AsyncIterator[tuple[FastAPI, httpx.AsyncClient]]:
    async with app_with(redis_url=redis.url) as started:
        assert isinstance(started.app.state.services.live_backend, RedisLiveBackend)
        yield started.app, started.http


async def test_the_session_is_free_before_the_final_event_is_seen(
    shared: tuple[FastAPI, httpx.AsyncClient], scripted: ScriptedProvider, redis: RedisServer
) -> None:
    """A client that reads ``turn_completed`` may start the next turn at once, on any
    replica: the lease is released after the commit and before the final event."""
    app, http = shared
    scripted.script("a b c", agent="alpha", chunk_delay_s=0.05)
    room = await create_room(http, ["alpha"])
    session = (await create_session(http, room["id"]))["id"]
    post = asyncio.create_task(http.post(f"/v1/sessions/{session}/turns", json={"message": "x"}))
    await until(app.state.services.live_turns.running)
    (live,) = app.state.services.live_turns.running()
    lease = f"pantheon:lease:{session}"
    store = Redis.from_url(redis.url, decode_responses=True, socket_timeout=5)
    try:
        assert await store.get(lease) == live.turn_id  # held while it runs
        async for published in live.follow(0):
            if published.event.type == "turn_completed":
                assert await store.get(lease) is None  # already free as the listener wakes
    finally:
        await store.aclose()
    assert (await post).status_code == 201


async def test_a_running_turn_is_409_then_its_record_and_a_changed_body_is_422(
    shared: tuple[FastAPI, httpx.AsyncClient], scripted: ScriptedProvider
) -> None:
    _app, shared_http = shared
    scripted.script("a b c d e f", agent="alpha", chunk_delay_s=0.2)
    room = await create_room(shared_http, ["alpha"])
    turns = f"/v1/sessions/{(await create_session(shared_http, room['id']))['id']}/turns"
    key, body = {"Idempotency-Key": "same"}, {"message": "hi"}
    first = asyncio.create_task(shared_http.post(turns, json=body, headers=key))
    await until(lambda: scripted.requests, attempts=3000)
    busy = await shared_http.post(turns, json={"message": "another"})
    assert busy.status_code == 409, busy.text
    turn_id = busy.json()["running_turn_id"]
    assert (await shared_http.get(f"/v1/turns/{turn_id}")).status_code == 409  # still running
    changed = await shared_http.post(turns, json={"message": "other"}, headers=key)
    assert changed.status_code == 422, changed.text
    joined = await shared_http.post(turns, json=body, headers=key)  # waits with the first
    assert joined.status_code == 201, joined.text
    assert joined.json()["id"] == (await first).json()["id"] == turn_id
    detail = await shared_http.get(f"/v1/turns/{turn_id}")
    assert detail.status_code == 200
    assert detail.json()["status"] == "completed"


async def test_a_turn_running_past_its_lease_keeps_renewing_it(
    settings: Settings, scripted: ScriptedProvider, redis: RedisServer, app_with: AppWith
) -> None:
    fast = settings.redis.model_copy(update={"lease_s": 1.0, "sweep_interval_s": 0.2})
    scripted.script(" ".join(f"w{i}" for i in range(40)), agent="alpha", chunk_delay_s=0.2)
    store = Redis.from_url(redis.url, decode_responses=True, socket_timeout=5)
    async with app_with(redis_url=redis.url, redis=fast) as started:
        app, http = started.app, started.http
        room = await create_room(http, ["alpha"])
        session = (await create_session(http, room["id"]))["id"]
        url = f"/v1/sessions/{session}/turns"
        post = asyncio.create_task(http.post(url, json={"message": "x"}))
        await until(app.state.services.live_turns.running)
        (live,) = app.state.services.live_turns.running()
        await asyncio.sleep(2.5)  # two and a half leases: only renewal keeps it
        assert not live.finished.is_set(), "the scripted turn is meant to run ~8 s"
        assert await store.get(f"pantheon:lease:{session}") == live.turn_id
        answer = await post
    await store.aclose()
    assert answer.json()["status"] == "completed"


async def test_a_renewal_in_flight_cannot_take_back_a_released_lease(
    shared: tuple[FastAPI, httpx.AsyncClient],
    scripted: ScriptedProvider,
    redis: RedisServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A lease renewal sent just before a turn frees its session used to land after the
    release and take the lease back for a turn that had ended: the client's next turn got
    409 "busy; retry" until the lease expired. Releases now wait for a renewal in flight,
    and later renewals skip the turn."""
    app, http = shared
    backend = app.state.services.live_backend
    assert isinstance(backend, RedisLiveBackend)
    scripted.script("a b c", agent="alpha", chunk_delay_s=0.05)
    room = await create_room(http, ["alpha"])
    session = (await create_session(http, room["id"]))["id"]
    turns = f"/v1/sessions/{session}/turns"
    post = asyncio.create_task(http.post(turns, json={"message": "x"}))
    await until(app.state.services.live_turns.running)
    renew = backend._renew

    async def slow_renew(live: list[LiveTurn]) -> list[str]:
        await asyncio.sleep(0.5)  # the turn ends meanwhile (0.15 s of deltas left)
        return await renew(live)

    monkeypatch.setattr(backend, "_renew", slow_renew)
    await backend._renew_once()
    assert (await post).json()["status"] == "completed"
    store = Redis.from_url(redis.url, decode_responses=True, socket_timeout=5)
    try:
        assert await store.get(f"pantheon:lease:{session}") is None
    finally:
        await store.aclose()
    await backend._renew_once()  # the ended turn is not renewed again
    scripted.script("d", agent="alpha")
    after = await http.post(turns, json={"message": "next"})
    assert after.status_code == 201, after.text
