"""Password sign-in: the session cookie, one 401 for every failed sign-in, sign-out,
password change, disabled users and expired sessions, and attempt limits."""

from __future__ import annotations

import httpx
import pytest

from pantheon.settings import AuthSettings
from tests.auth.conftest import Clients, MakeClients
from tests.auth.signin_helpers import (
    PASSWORD,
    cookie_client,
    expire_sessions,
    set_password,
    set_status,
    sign_in,
)


async def _login(app_client: httpx.AsyncClient, login: str, password: str) -> httpx.Response:
    return await app_client.post("/auth/login", json={"login": login, "password": password})


async def test_a_signed_in_person_uses_the_api_as_with_their_key(users: Clients) -> None:
    await set_password(users.app, "alice")
    signed = await sign_in(users.app, "alice")
    cookies = signed.response.headers.get_list("set-cookie")
    session_cookie = next(c for c in cookies if c.startswith("pantheon_session="))
    assert "HttpOnly" in session_cookie
    assert "SameSite=lax" in session_cookie
    assert "Secure" not in session_cookie  # plain http here
    csrf_cookie = next(c for c in cookies if c.startswith("pantheon_csrf="))
    assert "HttpOnly" not in csrf_cookie
    assert signed.response.json()["login"] == "alice"
    async with signed.http:
        me = (await signed.http.get("/v1/me")).json()
        made = await signed.http.post(
            "/v1/rooms", json={"name": "by cookie"}, headers=signed.csrf_header
        )
        assert made.status_code == 201, made.text
    assert me == {
        "id": me["id"], "login": "alice", "email": None, "display_name": "alice",
        "role": "member",
    }  # fmt: skip
    by_key = (await users.alice.get("/v1/me")).json()
    assert by_key == me
    assert made.json()["id"] in {
        r["id"] for r in (await users.alice.get("/v1/rooms")).json()["items"]
    }


async def test_the_cookie_is_secure_over_https(users: Clients) -> None:
    await set_password(users.app, "alice")
    async with cookie_client(users.app, {}, base_url="https://test") as https:
        response = await _login(https, "alice", PASSWORD)
    assert response.status_code == 200
    assert all("Secure" in c for c in response.headers.get_list("set-cookie"))


@pytest.mark.parametrize(
    "case", ["wrong password", "unknown login", "pending", "disabled", "no password"]
)
async def test_every_failed_sign_in_gets_the_same_401(users: Clients, case: str) -> None:
    await set_password(users.app, "alice")
    login, password = "alice", PASSWORD
    if case == "wrong password":
        password = "not the password at all"
    elif case == "unknown login":
        login = "mallory"
    elif case == "no password":
        login = "bob"  # keys only: never given a password
    else:
        await set_status(users.app, "alice", case)
    response = await _login(users.anon, login, password)
    assert response.status_code == 401
    assert response.json()["detail"] == "wrong login or password"
    assert "set-cookie" not in response.headers


async def test_each_sign_in_gets_a_new_session_and_a_planted_one_is_worthless(
    users: Clients,
) -> None:
    await set_password(users.app, "alice")
    planted = {"pantheon_session": "chosen-by-an-attacker"}
    async with cookie_client(users.app, planted) as victim:
        assert (await victim.get("/v1/me")).status_code == 401
        response = await _login(victim, "alice", PASSWORD)
    first, second = response.cookies["pantheon_session"], (await sign_in(users.app, "alice"))
    await second.http.aclose()
    assert first != "chosen-by-an-attacker"
    assert first != second.session_id


async def test_sign_out_ends_the_session(users: Clients) -> None:
    await set_password(users.app, "alice")
    signed = await sign_in(users.app, "alice")
    async with signed.http:
        out = await signed.http.post("/auth/logout", headers=signed.csrf_header)
        assert out.status_code == 204
        again = await signed.http.get("/v1/me")  # the same cookie, sent again
    assert again.status_code == 401
    assert "sign in again" in again.json()["detail"]


async def test_an_expired_session_is_401(users: Clients) -> None:
    await set_password(users.app, "alice")
    signed = await sign_in(users.app, "alice")
    await expire_sessions(users.app)
    async with signed.http:
        assert (await signed.http.get("/v1/rooms")).status_code == 401


async def test_a_disabled_user_is_out_at_once_by_cookie_and_by_key(users: Clients) -> None:
    await set_password(users.app, "alice")
    signed = await sign_in(users.app, "alice")
    async with signed.http:
        assert (await signed.http.get("/v1/rooms")).status_code == 200
        await set_status(users.app, "alice", "disabled")
        assert (await signed.http.get("/v1/rooms")).status_code == 401
    assert (await users.alice.get("/v1/rooms")).status_code == 401
    assert (await users.bob.get("/v1/rooms")).status_code == 200


async def test_a_password_change_ends_the_other_sessions(users: Clients) -> None:
    await set_password(users.app, "alice")
    here, elsewhere = await sign_in(users.app, "alice"), await sign_in(users.app, "alice")
    new = "a much better passphrase"
    async with here.http, elsewhere.http:
        url, csrf = "/v1/me/password", here.csrf_header
        short = await here.http.post(url, json={"current": PASSWORD, "new": "short"}, headers=csrf)
        assert short.status_code == 422
        wrong = await here.http.post(url, json={"current": "guess" * 3, "new": new}, headers=csrf)
        assert wrong.status_code == 403
        assert wrong.json()["detail"] == "the current password is wrong"
        done = await here.http.post(url, json={"current": PASSWORD, "new": new}, headers=csrf)
        assert done.status_code == 204, done.text
        assert (await here.http.get("/v1/me")).status_code == 200
        assert (await elsewhere.http.get("/v1/me")).status_code == 401
    assert (await _login(users.anon, "alice", PASSWORD)).status_code == 401
    assert (await _login(users.anon, "alice", new)).status_code == 200


async def test_a_key_user_changes_the_password_and_every_session_ends(users: Clients) -> None:
    await set_password(users.app, "alice")
    signed = await sign_in(users.app, "alice")
    body = {"current": PASSWORD, "new": "a much better passphrase"}
    assert (await users.alice.post("/v1/me/password", json=body)).status_code == 204
    async with signed.http:
        assert (await signed.http.get("/v1/me")).status_code == 401


def _from(app: object, address: str) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=(address, 40000))  # type: ignore[arg-type]
    return httpx.AsyncClient(transport=transport, base_url="http://test")


async def test_sign_in_attempts_are_limited_per_login(make_clients: MakeClients) -> None:
    users = await make_clients(auth=AuthSettings(login_attempts_per_minute=2))
    await set_password(users.app, "alice")
    answers = []
    for address in ("10.0.0.1", "10.0.0.2", "10.0.0.3"):
        async with _from(users.app, address) as http:
            answers.append(await _login(http, "alice", "wrong password!"))
    assert [r.status_code for r in answers] == [401, 401, 429]
    assert int(answers[-1].headers["retry-after"]) >= 1
    assert "PANTHEON_AUTH__LOGIN_ATTEMPTS_PER_MINUTE" in answers[-1].json()["detail"]
    async with _from(users.app, "10.0.0.4") as http:  # even the right password waits
        assert (await _login(http, "alice", PASSWORD)).status_code == 429


async def test_sign_in_attempts_are_limited_per_address(make_clients: MakeClients) -> None:
    users = await make_clients(auth=AuthSettings(login_attempts_per_minute=2))
    async with _from(users.app, "10.9.9.9") as http:
        codes = [(await _login(http, name, "wrong password!")).status_code for name in "abc"]
    assert codes == [401, 401, 429]


async def test_local_mode_has_no_sign_in(client: httpx.AsyncClient) -> None:
    response = await _login(client, "local", PASSWORD)
    assert response.status_code == 404
    assert "local mode" in response.json()["detail"]
