"""``NaN``, ``Infinity`` and numbers past a float (``1e400``) in a JSON body: Python's JSON
parser takes them, so they reach validation. Every route answers the documented 422 naming
the field (the echoed input made encodable), and no non-finite number is ever stored."""

from __future__ import annotations

import uuid

import httpx
import pytest
from fastapi import FastAPI

from tests.factories import create_agent, create_room, create_session

NON_FINITE = [b"NaN", b"Infinity", b"-Infinity", b"1e400", b"-1e400"]
ANY_ID = str(uuid.uuid4())


async def _post(
    client: httpx.AsyncClient, url: str, body: bytes, method: str = "POST"
) -> httpx.Response:
    headers = {"content-type": "application/json"}
    return await client.request(method, url, content=body, headers=headers)


def _field_named(response: httpx.Response, field: str) -> None:
    assert response.status_code == 422, response.text
    errors = response.json()["detail"]
    assert any(field in error["loc"] for error in errors), errors


async def _routes(client: httpx.AsyncClient, app: FastAPI) -> list[tuple[str, str, bytes, str]]:
    """(method, url, body template with $ for the number, the field it lands in)."""
    room = await create_room(client, ["alpha"])
    agent = await create_agent(client, "beta")
    session = (await create_session(client, room["id"]))["id"]
    user = app.state.services.local_user_id
    return [
        ("POST", "/v1/rooms", b'{"name": $}', "name"),
        ("PATCH", f"/v1/rooms/{room['id']}", b'{"description": $}', "description"),
        ("POST", "/v1/agents", b'{"key": $, "name": "n", "role_prompt": "r"}', "key"),
        ("PATCH", f"/v1/agents/{agent['id']}", b'{"tools": [$]}', "tools"),
        ("POST", f"/v1/rooms/{room['id']}/agents", b'{"agent_id": $}', "agent_id"),
        ("POST", f"/v1/rooms/{room['id']}/agents", b'{"agent_id": "x", "position": $}', "position"),
        ("POST", f"/v1/rooms/{room['id']}/sessions", b'{"title": $}', "title"),
        ("POST", f"/v1/sessions/{session}/turns", b'{"message": $}', "message"),
        ("POST", f"/v1/sessions/{session}/turns", b'{"message": "hi", "mode": $}', "mode"),
        ("PUT", f"/v1/admin/users/{user}/budgets", b'{"daily_usd": $}', "daily_usd"),
        ("PUT", f"/v1/admin/users/{user}/budgets", b'{"monthly_usd": $}', "monthly_usd"),
        (
            "POST",
            f"/v1/turns/{ANY_ID}/approvals",
            b'{"decisions": [{"call_id": "c", "approve": $}]}',
            "approve",
        ),
    ]


async def test_non_finite_numbers_are_422_naming_the_field_on_every_route(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    for method, url, template, field in await _routes(client, app):
        for number in NON_FINITE:
            response = await _post(client, url, template.replace(b"$", number), method)
            _field_named(response, field)


async def test_the_echoed_non_finite_input_is_a_string(client: httpx.AsyncClient) -> None:
    response = await _post(client, "/v1/rooms", b'{"name": NaN, "mode": -Infinity}')
    assert response.status_code == 422
    inputs = {error["loc"][-1]: error["input"] for error in response.json()["detail"]}
    assert inputs == {"name": "NaN", "mode": "-Infinity"}


@pytest.mark.parametrize("number", NON_FINITE)
async def test_a_non_finite_budget_is_refused_and_not_stored(
    client: httpx.AsyncClient, app: FastAPI, number: bytes
) -> None:
    url = f"/v1/admin/users/{app.state.services.local_user_id}/budgets"
    response = await _post(client, url, b'{"daily_usd": %s, "monthly_usd": 5}' % number, "PUT")
    _field_named(response, "daily_usd")
    assert "finite number" in response.text
    listed = await client.get(url)
    assert listed.status_code == 200
    assert listed.json()["items"] == []


async def test_the_facade_answers_non_finite_numbers_in_openai_shape(
    client: httpx.AsyncClient,
) -> None:
    for number in NON_FINITE:
        body = b'{"model": "agent-x", "messages": [{"role": "user", "content": "hi"}], '
        body += b'"top_p": %s}' % number
        response = await _post(client, "/openai/v1/chat/completions", body)
        assert response.status_code == 400, response.text
        error = response.json()["error"]
        assert error["param"] == "top_p"
        assert error["type"] == "invalid_request_error"
