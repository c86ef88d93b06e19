"""Limits: turns per minute per key (JSON and SSE alike), body size, roster size, message."""

from __future__ import annotations

from collections.abc import AsyncIterator

from pantheon.live.rate_limit import RateLimiter
from pantheon.settings import LimitSettings, TurnSettings
from tests.auth.conftest import MakeClients
from tests.factories import create_agent, create_room, create_session


def test_sliding_window_counts_the_last_minute() -> None:
    now = [0.0]
    limiter = RateLimiter(clock=lambda: now[0])
    assert limiter.hit("k", 2) is None
    now[0] = 30.0
    assert limiter.hit("k", 2) is None
    assert limiter.hit("k", 2) == 30.0  # the first hit leaves the window at t=60
    assert limiter.hit("other", 2) is None
    now[0] = 60.0
    assert limiter.hit("k", 2) is None


async def test_turn_rate_limit_is_per_key_and_covers_json_and_sse(
    make_clients: MakeClients,
) -> None:
    users = await make_clients(limits=LimitSettings(turns_per_minute=2))
    room = await create_room(users.alice, ["alpha"])
    url = f"/v1/sessions/{(await create_session(users.alice, room['id']))['id']}/turns"
    assert (await users.alice.post(url, json={"message": "one"})).status_code == 201
    streamed = await users.alice.post(url, json={"message": "two"}, params={"stream": "true"})
    assert streamed.status_code == 200
    for params in ({}, {"stream": "true"}):
        limited = await users.alice.post(url, json={"message": "three"}, params=params)
        assert limited.status_code == 429
        assert 1 <= int(limited.headers["retry-after"]) <= 60
        assert "2 turns per minute" in limited.json()["detail"]
    # bob has his own budget; his request reaches preflight (404 for alice's session)
    assert (await users.bob.post(url, json={"message": "hi"})).status_code == 404


async def test_body_over_the_limit_is_413(make_clients: MakeClients) -> None:
    users = await make_clients(limits=LimitSettings(max_body_bytes=2048))
    big = {"name": "x", "description": "y" * 4000}
    declared = await users.alice.post("/v1/rooms", json=big)
    assert declared.status_code == 413
    assert "2048 bytes" in declared.json()["detail"]

    async def chunks() -> AsyncIterator[bytes]:
        yield b'{"name": "x", "description": "'
        for _ in range(10):
            yield b"y" * 500
        yield b'"}'

    streamed = await users.alice.post(
        "/v1/rooms", content=chunks(), headers={"Content-Type": "application/json"}
    )
    assert streamed.status_code == 413
    assert "PANTHEON_LIMITS__MAX_BODY_BYTES" in streamed.json()["detail"]
    assert (await users.alice.get("/v1/rooms")).json()["total"] == 0


async def test_roster_limit_is_422_naming_the_limit(make_clients: MakeClients) -> None:
    users = await make_clients(limits=LimitSettings(max_roster=2))
    room = await create_room(users.alice, ["a1", "a2"])
    third = await create_agent(users.alice, "a3")
    response = await users.alice.post(
        f"/v1/rooms/{room['id']}/agents", json={"agent_id": third["id"]}
    )
    assert response.status_code == 422
    assert "roster limit is 2" in response.json()["detail"]
    assert len((await users.alice.get(f"/v1/rooms/{room['id']}")).json()["agents"]) == 2


async def test_message_over_the_limit_is_422_naming_the_limit(make_clients: MakeClients) -> None:
    users = await make_clients(turns=TurnSettings(max_message_chars=10))
    room = await create_room(users.alice, ["alpha"])
    session = await create_session(users.alice, room["id"])
    url = f"/v1/sessions/{session['id']}/turns"
    response = await users.alice.post(url, json={"message": "x" * 11})
    assert response.status_code == 422
    assert "the limit is 10" in response.json()["detail"]
    assert (await users.alice.get(f"{url}")).json()["total"] == 0
