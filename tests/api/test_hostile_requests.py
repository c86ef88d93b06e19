"""Hostile request bodies and parameters get a clear 4xx or are stored with what cannot
be stored replaced; never a 500 (issue: nothing lost, no 5xx)."""

from __future__ import annotations

import httpx

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.factories import create_room, create_session
from tests.sse_client import stream_turn

LONE = b'"lone \\ud800 end"'
NUL = b'"nul \\u0000 end"'


def _json(template: bytes, **strings: bytes) -> bytes:
    body = template
    for name, value in strings.items():
        body = body.replace(f"${name}".encode(), value)
    return body


async def _post(client: httpx.AsyncClient, url: str, body: bytes) -> httpx.Response:
    return await client.post(url, content=body, headers={"content-type": "application/json"})


async def test_crud_strings_with_nul_or_lone_surrogates_are_stored_replaced(
    client: httpx.AsyncClient,
) -> None:
    for raw in (LONE, NUL):
        room = await _post(client, "/v1/rooms", _json(b'{"name": $s, "description": $s}', s=raw))
        assert room.status_code == 201, room.text
        assert "\ufffd" in room.json()["name"]
        agent = await _post(
            client,
            "/v1/agents",
            _json(b'{"key": "k%d", "name": $s, "role_prompt": $s}' % len(raw), s=raw),
        )
        assert agent.status_code == 201, agent.text
        fetched = await client.get(f"/v1/agents/{agent.json()['id']}")
        assert fetched.json()["role_prompt"].endswith("\ufffd end")


async def test_a_turn_message_with_nul_and_a_lone_surrogate_is_kept(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    room = await create_room(client, ["alpha"])
    session = (await create_session(client, room["id"]))["id"]
    body = b'{"message": "hi \\u0000 there \\udfff!"}'
    response = await _post(client, f"/v1/sessions/{session}/turns", body)
    assert response.status_code == 201, response.text
    assert response.json()["message"] == "hi \ufffd there \ufffd!"
    assert scripted.calls(agent="alpha")[0].request.messages[-1].content.endswith("\ufffd!")


async def test_validation_errors_echoing_unstorable_input_are_422(
    client: httpx.AsyncClient,
) -> None:
    response = await _post(client, "/v1/rooms", b'{"name": "ok", "mode": "\\ud800"}')
    assert response.status_code == 422
    assert response.json()["detail"][0]["input"] == "\ufffd"


async def test_an_undecodable_body_is_the_documented_422(client: httpx.AsyncClient) -> None:
    response = await _post(client, "/v1/rooms", b'{"name": "\xff\xfe"}')
    assert response.status_code == 422
    assert "not valid UTF-8 JSON" in response.json()["detail"]
    broken = await _post(client, "/v1/rooms", b'{"name": ')
    assert broken.status_code == 422


async def test_a_whitespace_only_message_is_422_and_calls_no_model(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    room = await create_room(client, ["alpha"])
    session = (await create_session(client, room["id"]))["id"]
    response = await client.post(f"/v1/sessions/{session}/turns", json={"message": " \n\t "})
    assert response.status_code == 422
    assert "only whitespace" in response.text
    assert scripted.requests == []


async def test_offsets_past_any_row_are_422_on_every_list(client: httpx.AsyncClient) -> None:
    room = await create_room(client, ["alpha"])
    session = (await create_session(client, room["id"]))["id"]
    lists = [
        "/v1/rooms", "/v1/agents", f"/v1/rooms/{room['id']}/sessions",
        f"/v1/sessions/{session}/messages", f"/v1/sessions/{session}/turns",
    ]  # fmt: skip
    for url in lists:
        huge = await client.get(url, params={"offset": 2**63})
        assert huge.status_code == 422, (url, huge.text)
        last = await client.get(url, params={"offset": 2**31 - 1})
        assert last.status_code == 200, (url, last.text)
        assert last.json()["items"] == []


async def test_event_resume_points_are_validated_before_the_stream(
    client: httpx.AsyncClient,
) -> None:
    room = await create_room(client, ["alpha"])
    session = (await create_session(client, room["id"]))["id"]
    events = await stream_turn(client, session, {"message": "hi"})
    url = f"/v1/turns/{events[0][1]['turn_id']}/events"
    for header in (b"\xb2", b"-1", b"1.5", str(2**63).encode(), str(2**31).encode()):
        response = await client.get(url, headers={b"Last-Event-ID": header})
        assert response.status_code == 422, (header, response.text)
    for after in (2**63, 2**31):
        response = await client.get(url, params={"after": after})
        assert response.status_code == 422, (after, response.text)
    last = await client.get(url, headers={"Last-Event-ID": str(2**31 - 1)})
    assert last.status_code == 200
    assert "data:" not in last.text


async def test_options_and_405_name_every_method_of_the_path(client: httpx.AsyncClient) -> None:
    room = await create_room(client)
    options = await client.options(f"/v1/rooms/{room['id']}")
    assert options.status_code == 204
    assert set(options.headers["allow"].split(", ")) >= {"GET", "PATCH", "DELETE", "OPTIONS"}
    put = await client.put(f"/v1/rooms/{room['id']}", json={})
    assert put.status_code == 405
    assert set(put.headers["allow"].split(", ")) >= {"GET", "PATCH", "DELETE"}
    assert "PUT is not allowed" in put.json()["detail"]


async def test_a_nul_in_search_text_is_replaced_not_a_500(client: httpx.AsyncClient) -> None:
    room = await create_room(client, ["alpha"])
    sessions = await client.get(f"/v1/rooms/{room['id']}/sessions", params={"q": "a\x00b"})
    assert sessions.status_code == 200, sessions.text
    search = await client.get(f"/v1/rooms/{room['id']}/knowledge/search", params={"q": "x\x00"})
    assert search.status_code == 200, search.text
