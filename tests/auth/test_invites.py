"""Accepting an invitation (``POST /auth/invite``): the first password is set and the person
is signed in exactly as by ``POST /auth/login``; the link works once, expires, dies with a
new link or a disable, and every bad token gets one answer. The token is stored only by
its SHA-256. The page is served at the link's path."""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from datetime import timedelta

import httpx
import pytest
from sqlalchemy import select, update

from pantheon.db.invite_models import Invite
from pantheon.db.uow import unit_of_work
from pantheon.settings import AuthSettings
from tests.auth.conftest import Clients, MakeClients
from tests.auth.signin_helpers import PASSWORD, cookie_client, database
from tests.auth.test_admin_users import patch

INVALID = (
    "this invitation link is not valid: it is unknown, already used or expired; "
    "ask an admin for a new one"
)


async def invite(users: Clients, login: str = "dana") -> str:
    made = await users.root.post("/v1/admin/users", json={"login": login})
    assert made.status_code == 201, made.text
    return str(made.json()["invite_url"]).removeprefix("/invite/")


async def accept(
    users: Clients, token: str, password: str = PASSWORD, http: httpx.AsyncClient | None = None
) -> httpx.Response:
    return await (http or users.anon).post(
        "/auth/invite", json={"token": token, "password": password}
    )


async def stored(users: Clients) -> list[Invite]:
    async with unit_of_work(database(users.app), write=False) as session:
        return list(await session.scalars(select(Invite)))


async def test_accepting_sets_the_password_and_signs_in_like_login(users: Clients) -> None:
    token = await invite(users)
    (row,) = await stored(users)
    assert row.token_hash == hashlib.sha256(token.encode()).hexdigest()
    assert row.expires_at - row.created_at == timedelta(days=7)  # the default TTL
    accepted = await accept(users, token)
    assert accepted.status_code == 200, accepted.text
    assert accepted.json()["login"] == "dana"
    assert accepted.json()["role"] == "member"
    cookies = accepted.headers.get_list("set-cookie")
    session_cookie = next(c for c in cookies if c.startswith("pantheon_session="))
    assert "HttpOnly" in session_cookie
    assert "SameSite=lax" in session_cookie
    session_id = accepted.cookies["pantheon_session"]
    csrf = accepted.cookies["pantheon_csrf"]
    assert session_id != token
    signed = cookie_client(users.app, {"pantheon_session": session_id, "pantheon_csrf": csrf})
    async with signed:
        assert (await signed.get("/v1/me")).json()["login"] == "dana"
        made = await signed.post("/v1/rooms", json={"name": "r"}, headers={"X-CSRF-Token": csrf})
        assert made.status_code == 201
        assert (await signed.post("/v1/rooms", json={"name": "r"})).status_code == 403  # CSRF
    again = await users.anon.post("/auth/login", json={"login": "dana", "password": PASSWORD})
    assert again.status_code == 200
    assert await stored(users) == []  # spent


async def test_the_cookie_is_secure_over_https(users: Clients) -> None:
    token = await invite(users)
    async with cookie_client(users.app, {}, base_url="https://test") as https:
        accepted = await accept(users, token, http=https)
    assert accepted.status_code == 200
    assert all("Secure" in c for c in accepted.headers.get_list("set-cookie"))


@pytest.mark.parametrize("case", ["unknown", "used", "expired", "replaced", "disabled"])
async def test_every_bad_token_gets_the_same_answer(users: Clients, case: str) -> None:
    token = await invite(users)
    if case == "unknown":
        token = secrets.token_urlsafe(32)
    elif case == "used":
        assert (await accept(users, token)).status_code == 200
    elif case == "expired":
        async with unit_of_work(database(users.app), write=True) as session:
            await session.execute(update(Invite).values(expires_at=Invite.created_at))
    elif case == "replaced":
        dana = next(
            u["id"]
            for u in (await users.root.get("/v1/admin/users")).json()["items"]
            if u["login"] == "dana"
        )
        renewed = await users.root.post(f"/v1/admin/users/{dana}/invite")
        assert renewed.status_code == 201
        assert (
            await accept(users, renewed.json()["invite_url"][8:], "another long one!")
        ).is_success
    else:
        assert (await patch(users, "dana", status="disabled")).status_code == 200
    refused = await accept(users, token, "a different password")
    assert refused.status_code == 400
    assert refused.json() == {"detail": INVALID, "code": "invalid_invite"}
    assert "set-cookie" not in refused.headers
    signin = {"login": "dana", "password": "a different password"}
    assert (await users.anon.post("/auth/login", json=signin)).status_code == 401


async def test_a_short_password_is_refused_and_keeps_the_link(users: Clients) -> None:
    token = await invite(users)
    for password in ("short", "x" * 1025):
        refused = await accept(users, token, password)
        assert refused.status_code == 422
        assert "password" in str(refused.json()["detail"])
    assert len(await stored(users)) == 1
    assert (await accept(users, token)).status_code == 200


async def test_two_accepts_of_one_link_sign_in_once(users: Clients) -> None:
    token = await invite(users)
    first, second = await asyncio.gather(
        accept(users, token), accept(users, token, "the second one!!")
    )
    assert sorted([first.status_code, second.status_code]) == [200, 400]
    won, lost = (PASSWORD, "the second one!!")[:: 1 if first.status_code == 200 else -1]
    for password, status in ((won, 200), (lost, 401)):
        signin = {"login": "dana", "password": password}
        assert (await users.anon.post("/auth/login", json=signin)).status_code == status


async def test_reinviting_needs_an_active_user(users: Clients) -> None:
    await patch(users, "bob", status="disabled")
    bob = next(
        u["id"]
        for u in (await users.root.get("/v1/admin/users")).json()["items"]
        if u["login"] == "bob"
    )
    refused = await users.root.post(f"/v1/admin/users/{bob}/invite")
    assert refused.status_code == 409
    assert "disabled" in refused.json()["detail"]


async def test_the_ttl_is_a_setting(make_clients: MakeClients) -> None:
    users = await make_clients(auth=AuthSettings(invite_ttl_s=3600))
    await invite(users)
    (row,) = await stored(users)
    assert row.expires_at - row.created_at == timedelta(hours=1)


async def test_no_invitations_in_local_mode(client: httpx.AsyncClient) -> None:
    refused = await client.post("/auth/invite", json={"token": "x", "password": PASSWORD})
    assert refused.status_code == 404
    assert "local mode" in refused.json()["detail"]


async def test_the_link_serves_the_page(users: Clients) -> None:
    token = await invite(users)
    page = await users.anon.get(f"/invite/{token}")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert 'src="/js/app.js?v=' in page.text
