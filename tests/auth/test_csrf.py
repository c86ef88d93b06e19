"""CSRF double submit: a request signed in by cookie that changes state must repeat the
``pantheon_csrf`` cookie in ``X-CSRF-Token``; bearer keys need nothing."""

from __future__ import annotations

import httpx

from tests.auth.conftest import Clients
from tests.auth.signin_helpers import SignedIn, set_password, sign_in


async def _alice(users: Clients) -> SignedIn:
    await set_password(users.app, "alice")
    return await sign_in(users.app, "alice")


async def _room_names(users: Clients) -> list[str]:
    return [r["name"] for r in (await users.alice.get("/v1/rooms")).json()["items"]]


def _refused(response: httpx.Response) -> None:
    assert response.status_code == 403, response.text
    assert "X-CSRF-Token" in response.json()["detail"]


async def test_a_cookie_request_without_the_token_is_refused(users: Clients) -> None:
    signed = await _alice(users)
    async with signed.http:
        _refused(await signed.http.post("/v1/rooms", json={"name": "forged"}))
        wrong = {"X-CSRF-Token": signed.csrf + "x"}
        _refused(await signed.http.post("/v1/rooms", json={"name": "forged"}, headers=wrong))
        assert (await signed.http.get("/v1/rooms")).status_code == 200  # reads need none
    assert await _room_names(users) == []


async def test_a_cookie_request_with_the_token_is_served(users: Clients) -> None:
    signed = await _alice(users)
    async with signed.http:
        made = await signed.http.post(
            "/v1/rooms", json={"name": "mine"}, headers=signed.csrf_header
        )
        assert made.status_code == 201, made.text
        path = f"/v1/rooms/{made.json()['id']}"
        _refused(await signed.http.delete(path))
        assert await _room_names(users) == ["mine"]
        deleted = await signed.http.delete(path, headers=signed.csrf_header)
    assert deleted.status_code == 204, deleted.text
    assert await _room_names(users) == []


async def test_a_bearer_key_needs_no_token(users: Clients) -> None:
    made = await users.alice.post("/v1/rooms", json={"name": "by key"})
    assert made.status_code == 201, made.text


async def test_a_cross_site_form_post_is_refused(users: Clients) -> None:
    signed = await _alice(users)
    form = {"Content-Type": "application/x-www-form-urlencoded", "Origin": "https://evil.example"}
    async with signed.http:
        posted = await signed.http.post("/v1/rooms", content=b"name=forged", headers=form)
        out = await signed.http.post("/auth/logout", content=b"", headers=form)
    _refused(posted)
    _refused(out)
    assert await _room_names(users) == []


async def test_the_token_of_another_session_does_not_do(users: Clients) -> None:
    signed, other = await _alice(users), await sign_in(users.app, "alice")
    async with signed.http, other.http:
        _refused(await signed.http.post("/v1/rooms", json={"name": "x"}, headers=other.csrf_header))
