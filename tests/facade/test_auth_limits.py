"""The native API's keys, isolation, rate and size limits, answered in OpenAI's shape."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import openai
import pytest

from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.settings import LimitSettings, TurnSettings
from tests.auth.conftest import MakeClients
from tests.facade.conftest import openai_for, room_model, user

URL = "/openai/v1/chat/completions"


async def test_missing_or_bad_key_is_401_in_openai_shape(make_clients: MakeClients) -> None:
    users = await make_clients()
    for path in ("/openai/v1/models", "/openai/v1/models/agent-x", "/openai/v1/nothing"):
        response = await users.anon.get(path)
        assert response.status_code == 401, path
        assert response.headers["www-authenticate"].startswith("Bearer")
        assert response.json()["error"]["type"] == "authentication_error"
        assert response.json()["error"]["code"] == "invalid_api_key"
    sdk = openai_for(users.app, key="pk_00000000_wrong")
    with pytest.raises(openai.AuthenticationError) as raised:
        await sdk.chat.completions.create(model="agent-x", messages=[user("hi")])
    assert raised.value.message.endswith("invalid API key")
    await sdk.close()


async def test_keys_see_and_run_only_their_owners_models(
    make_clients: MakeClients, scripted: ScriptedProvider
) -> None:
    users = await make_clients()
    model = await room_model(users.alice, ["alpha"], "roundtable")
    alice, bob = (openai_for(users.app, users.keys[n]) for n in ("alice", "bob"))
    assert [m.id for m in (await alice.models.list()).data] == [model, "agent-alpha"]
    assert [m.owned_by for m in (await alice.models.list()).data] == ["alice", "alice"]
    assert (await bob.models.list()).data == []
    for name in (model, "agent-alpha"):
        with pytest.raises(openai.NotFoundError):
            await bob.models.retrieve(name)
        with pytest.raises(openai.NotFoundError):
            await bob.chat.completions.create(model=name, messages=[user("hi")])
    assert scripted.requests == []
    answer = await alice.chat.completions.with_raw_response.create(
        model=model, messages=[user("hi")]
    )
    session = answer.headers["x-pantheon-session"]
    with pytest.raises(openai.NotFoundError):  # bob cannot continue alice's session either
        await bob.chat.completions.create(
            model=model, messages=[user("hi")], extra_headers={"X-Pantheon-Session": session}
        )
    assert len(scripted.requests) == 1
    await alice.close()
    await bob.close()


async def test_turn_rate_limit_is_shared_with_the_native_api(make_clients: MakeClients) -> None:
    users = await make_clients(limits=LimitSettings(turns_per_minute=2))
    model = await room_model(users.alice, ["alpha"], "roundtable")
    sdk = openai_for(users.app, users.keys["alice"])
    await sdk.chat.completions.create(model=model, messages=[user("one")])
    stream = await sdk.chat.completions.create(model=model, messages=[user("two")], stream=True)
    assert [c async for c in stream]
    for streamed in (False, True):
        with pytest.raises(openai.RateLimitError) as raised:
            await sdk.chat.completions.create(
                model=model, messages=[user("three")], stream=streamed
            )
        assert 1 <= int(raised.value.response.headers["retry-after"]) <= 60
        assert raised.value.code == "rate_limit_exceeded"
        assert "2 turns per minute" in raised.value.message
    native = await users.alice.post(f"/v1/rooms/{model[5:]}/sessions", json={})
    limited = await users.alice.post(
        f"/v1/sessions/{native.json()['id']}/turns", json={"message": "x"}
    )
    assert limited.status_code == 429
    assert "detail" in limited.json()
    await sdk.close()


async def test_body_over_the_limit_is_413_in_openai_shape(make_clients: MakeClients) -> None:
    users = await make_clients(limits=LimitSettings(max_body_bytes=2048))
    big = {"model": "agent-x", "messages": [user("y" * 4000)]}
    declared = await users.alice.post(URL, json=big)
    assert declared.status_code == 413
    assert declared.json()["error"]["code"] == "request_too_large"
    assert "2048 bytes" in declared.json()["error"]["message"]

    async def chunks() -> AsyncIterator[bytes]:
        yield b'{"model": "agent-x", "messages": [{"role": "user", "content": "'
        for _ in range(10):
            yield b"y" * 500
        yield b'"}]}'

    streamed = await users.alice.post(
        URL, content=chunks(), headers={"Content-Type": "application/json"}
    )
    assert streamed.status_code == 413
    assert "PANTHEON_LIMITS__MAX_BODY_BYTES" in streamed.json()["error"]["message"]
    native = await users.alice.post("/v1/rooms", json={"name": "x", "description": "y" * 4000})
    assert native.json()["code"] == "too_large"


async def test_message_and_instructions_over_the_limit_are_400(
    make_clients: MakeClients, scripted: ScriptedProvider
) -> None:
    users = await make_clients(turns=TurnSettings(max_message_chars=10))
    model = await room_model(users.alice, ["alpha"], "roundtable")
    too_long = await users.alice.post(URL, json={"model": model, "messages": [user("x" * 11)]})
    assert too_long.status_code == 400
    assert "the limit is 10" in too_long.json()["error"]["message"]
    system = {"role": "system", "content": "s" * 11}
    long_system = await users.alice.post(
        URL, json={"model": model, "messages": [system, user("hi")]}
    )
    assert long_system.status_code == 400
    assert "system messages are 11 characters" in long_system.json()["error"]["message"]
    assert scripted.requests == []
    sessions = await users.alice.get(f"/v1/rooms/{model[5:]}/sessions")
    assert sessions.json()["total"] == 0


async def test_local_client_fixture_is_unaffected(client: httpx.AsyncClient) -> None:
    assert (await client.get("/openai/v1/models")).json() == {"object": "list", "data": []}
