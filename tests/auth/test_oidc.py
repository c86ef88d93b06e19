"""OIDC sign-in against a real provider process (``oidc-provider-mock``): the redirect,
first sign-ins under each signup rule, linked identities, allowed domains, the admin
group, and every refusal (state, nonce, replayed code, disabled and pending users)."""

from __future__ import annotations

import asyncio
import functools
import logging
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import update

from pantheon.db.oidc_models import OidcLogin
from pantheon.db.uow import unit_of_work
from pantheon.users.oidc_logins import STATE_COOKIE
from tests.auth.conftest import MakeClients, make_user
from tests.auth.oidc_fixtures import SECRET_ENV, MakeOidc, claims, signin_error, start_oidc
from tests.auth.oidc_provider import MockProvider, mock_provider, query
from tests.auth.signin_helpers import database, set_status

pytestmark = pytest.mark.oidc


@pytest.fixture(scope="module")
def provider() -> Iterator[MockProvider]:
    with mock_provider() as running:
        yield running


@pytest.fixture
def make_oidc(
    make_clients: MakeClients,
    provider: MockProvider,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> MakeOidc:
    monkeypatch.setenv(SECRET_ENV, "not-a-real-secret")
    return functools.partial(start_oidc, make_clients, provider, tmp_path)


def _sub() -> str:
    return f"person-{uuid.uuid4().hex[:10]}"


async def test_login_redirects_to_the_provider_with_pkce_state_and_nonce(
    make_oidc: MakeOidc,
) -> None:
    oidc = await make_oidc()
    response = await oidc.get("/auth/oidc/mock/login")
    assert response.status_code == 302
    location = response.headers["location"]
    assert location.startswith(f"{oidc.provider.issuer}/oauth2/authorize?")
    params = query(location)
    assert params["response_type"] == "code"
    assert params["client_id"] == "pantheon"
    assert params["redirect_uri"] == "http://test/auth/oidc/mock/callback"
    assert params["scope"] == "openid email profile"
    assert params["code_challenge_method"] == "S256"
    assert len(params["code_challenge"]) == 43  # base64url of a SHA-256
    assert len(params["nonce"]) >= 43
    cookie = next(
        c for c in response.headers.get_list("set-cookie") if c.startswith(f"{STATE_COOKIE}=")
    )
    assert response.cookies[STATE_COOKIE] == params["state"]
    assert "HttpOnly" in cookie
    assert "SameSite=lax" in cookie
    assert "Path=/auth/oidc/mock" in cookie


async def test_providers_are_listed_publicly(make_oidc: MakeOidc) -> None:
    oidc = await make_oidc()
    response = await oidc.get("/auth/providers")
    assert response.status_code == 200
    assert response.json() == {"password": True, "oidc": [{"name": "mock", "label": "Mock IdP"}]}


async def test_unknown_provider_is_404(make_oidc: MakeOidc) -> None:
    oidc = await make_oidc()
    for path in ("/auth/oidc/nope/login", "/auth/oidc/nope/callback?state=x&code=y"):
        response = await oidc.get(path)
        assert response.status_code == 404, path
        assert response.json()["detail"].startswith("no OIDC provider named 'nope'")


async def test_open_signup_creates_an_active_member_and_signs_in(make_oidc: MakeOidc) -> None:
    oidc = await make_oidc(signup="open")
    sub = _sub()
    response = await oidc.sign_in(sub, claims(f"{sub}@example.com", preferred_username=sub))
    assert signin_error(response) is None
    session_cookie = next(
        c for c in response.headers.get_list("set-cookie") if c.startswith("pantheon_session=")
    )
    assert "HttpOnly" in session_cookie
    assert "pantheon_csrf" in response.cookies
    me = await oidc.me(response)
    assert me.status_code == 200
    assert me.json() | {"id": None} == {
        "id": None, "login": sub, "email": f"{sub}@example.com",
        "display_name": sub.split("@")[0].title(), "role": "member",
    }  # fmt: skip
    again = await oidc.sign_in(sub, claims(f"{sub}@example.com"))
    assert signin_error(again) is None
    assert (await oidc.me(again)).json()["id"] == me.json()["id"]  # the same user, linked


async def test_pending_signup_makes_a_pending_user_who_is_not_signed_in(
    make_oidc: MakeOidc,
) -> None:
    oidc = await make_oidc(signup="pending")
    sub = _sub()
    email = f"{sub}@example.com"
    assert signin_error(await oidc.sign_in(sub, claims(email))) == "pending"
    user = await oidc.user_by_email(email)
    assert user is not None
    assert (user.status, user.role) == ("pending", "member")
    assert signin_error(await oidc.sign_in(sub, claims(email))) == "pending"  # still waits
    await set_status(oidc.users.app, user.login, "active")  # an admin approves
    approved = await oidc.sign_in(sub, claims(email))
    assert signin_error(approved) is None
    assert (await oidc.me(approved)).json()["login"] == user.login


async def test_closed_signup_refuses_a_stranger(make_oidc: MakeOidc) -> None:
    oidc = await make_oidc()  # closed is the default
    sub = _sub()
    assert signin_error(await oidc.sign_in(sub, claims(f"{sub}@example.com"))) == "refused"
    assert await oidc.user_by_email(f"{sub}@example.com") is None


async def test_closed_signup_lets_in_whom_an_admin_invited_by_email(make_oidc: MakeOidc) -> None:
    oidc = await make_oidc()
    await make_user(database(oidc.users.app), "carol")
    async with unit_of_work(database(oidc.users.app), write=True) as session:
        from pantheon.users.repository import UserRepository

        carol = await UserRepository(session).by_login("carol")
        assert carol is not None
        carol.email = "Carol@Example.com"
    sub = _sub()
    first = await oidc.sign_in(sub, claims("carol@example.com"))
    assert signin_error(first) is None
    assert (await oidc.me(first)).json()["login"] == "carol"
    # Linked by subject now: a changed email at the provider still signs carol in.
    later = await oidc.sign_in(sub, claims("carol.new@example.com"))
    assert signin_error(later) is None
    assert (await oidc.me(later)).json()["login"] == "carol"


async def test_an_unverified_email_does_not_claim_an_invited_account(
    make_oidc: MakeOidc,
) -> None:
    oidc = await make_oidc(signup="open")
    await make_user(database(oidc.users.app), "dave")
    async with unit_of_work(database(oidc.users.app), write=True) as session:
        from pantheon.users.repository import UserRepository

        dave = await UserRepository(session).by_login("dave")
        assert dave is not None
        dave.email = "dave@example.com"
    sub = _sub()
    response = await oidc.sign_in(sub, claims("dave@example.com", email_verified=False))
    assert signin_error(response) is None
    me = (await oidc.me(response)).json()
    assert (me["login"] != "dave", me["email"]) == (True, None)  # a new account, not dave's


async def test_allowed_domains_refuse_other_domains(make_oidc: MakeOidc) -> None:
    oidc = await make_oidc(signup="open", extra='allowed_domains = ["example.com"]')
    sub = _sub()
    assert signin_error(await oidc.sign_in(sub, claims(f"{sub}@elsewhere.org"))) == "domain"
    assert await oidc.user_by_email(f"{sub}@elsewhere.org") is None
    unverified = claims(f"{sub}@example.com", email_verified=False)
    assert signin_error(await oidc.sign_in(_sub(), unverified)) == "domain"
    assert signin_error(await oidc.sign_in(_sub(), claims(f"{sub}@example.com"))) is None


async def test_the_admin_group_makes_an_admin(make_oidc: MakeOidc) -> None:
    oidc = await make_oidc(signup="open", extra='admin_group = "pantheon-admins"')
    plain = await oidc.sign_in(_sub(), claims("p@example.com", groups=["staff"]))
    assert (await oidc.me(plain)).json()["role"] == "member"
    admin = await oidc.sign_in(_sub(), claims("a@example.com", groups=["staff", "pantheon-admins"]))
    assert (await oidc.me(admin)).json()["role"] == "admin"


async def test_a_disabled_user_is_refused(make_oidc: MakeOidc) -> None:
    oidc = await make_oidc(signup="open")
    sub = _sub()
    first = await oidc.sign_in(sub, claims(f"{sub}@example.com"))
    login = (await oidc.me(first)).json()["login"]
    await set_status(oidc.users.app, login, "disabled")
    assert signin_error(await oidc.sign_in(sub, claims(f"{sub}@example.com"))) == "disabled"
    assert (await oidc.me(first)).status_code == 401  # the earlier session ended with it


@pytest.mark.parametrize("case", ["altered", "missing", "no cookie", "other browser", "expired"])
async def test_a_bad_state_is_refused(make_oidc: MakeOidc, case: str) -> None:
    oidc = await make_oidc(signup="open")
    sub = _sub()
    oidc.provider.add_user(sub, claims(f"{sub}@example.com"))
    authorize, cookie = await oidc.start()
    back = oidc.provider.authorize(authorize, sub)
    state = query(back)["state"]
    if case == "altered":
        back = back.replace(state, state[:-2] + ("AA" if not state.endswith("AA") else "BB"))
    elif case == "missing":
        back = back.replace(f"state={state}", "")
    elif case == "no cookie":
        cookie = ""
    elif case == "other browser":
        _, cookie = await oidc.start()  # a browser that began its own sign-in
    else:
        async with unit_of_work(database(oidc.users.app), write=True) as session:
            await session.execute(update(OidcLogin).values(expires_at=OidcLogin.created_at))
    response = await oidc.callback(back, cookie or None)
    assert signin_error(response) == "state"
    assert await oidc.user_by_email(f"{sub}@example.com") is None


async def test_a_replayed_callback_is_refused(make_oidc: MakeOidc) -> None:
    oidc = await make_oidc(signup="open")
    sub = _sub()
    oidc.provider.add_user(sub, claims(f"{sub}@example.com"))
    authorize, cookie = await oidc.start()
    back = oidc.provider.authorize(authorize, sub)
    assert signin_error(await oidc.callback(back, cookie)) is None
    assert signin_error(await oidc.callback(back, cookie)) == "state"  # the state was used


async def test_a_replayed_code_is_refused(make_oidc: MakeOidc) -> None:
    oidc = await make_oidc(signup="open")
    sub = _sub()
    oidc.provider.add_user(sub, claims(f"{sub}@example.com"))
    authorize, cookie = await oidc.start()
    used = query(oidc.provider.authorize(authorize, sub))
    assert signin_error(await oidc.callback(_callback(used["code"], used["state"]), cookie)) is None
    # A fresh sign-in, fed the code already exchanged: the provider refuses it.
    _, fresh_cookie = await oidc.start()
    replay = await oidc.callback(_callback(used["code"], fresh_cookie), fresh_cookie)
    assert signin_error(replay) == "provider"


def _callback(code: str, state: str) -> str:
    return f"/auth/oidc/mock/callback?code={code}&state={state}"


async def test_an_id_token_for_another_nonce_is_refused(
    make_oidc: MakeOidc, caplog: pytest.LogCaptureFixture
) -> None:
    oidc = await make_oidc(signup="open")
    sub = _sub()
    oidc.provider.add_user(sub, claims(f"{sub}@example.com"))
    authorize, cookie = await oidc.start()
    nonce = query(authorize)["nonce"]
    # The provider is asked for a token carrying some other nonce (a replayed token's).
    back = oidc.provider.authorize(authorize.replace(nonce, f"replayed-{uuid.uuid4().hex}"), sub)
    with caplog.at_level(logging.INFO, logger="pantheon.users.oidc"):
        assert signin_error(await oidc.callback(back, cookie)) == "token"
    assert "nonce" in caplog.text
    assert await oidc.user_by_email(f"{sub}@example.com") is None


async def test_a_denied_authorization_is_reported(make_oidc: MakeOidc) -> None:
    oidc = await make_oidc(signup="open")
    authorize, cookie = await oidc.start()
    back = oidc.provider.authorize(authorize, "", deny=True)
    assert query(back)["error"] == "access_denied"
    # This provider leaves the state out of its error redirect: unverifiable, refused as such.
    assert signin_error(await oidc.callback(back, cookie)) == "state"
    authorize, cookie = await oidc.start()
    back = oidc.provider.authorize(authorize, "", deny=True)
    with_state = f"{back}&state={query(authorize)['state']}"  # as RFC 6749 has it
    assert signin_error(await oidc.callback(with_state, cookie)) == "denied"


async def test_two_first_sign_ins_at_once_end_as_one_linked_user(make_oidc: MakeOidc) -> None:
    # Both callbacks find no link and make one; the database keeps one, the other retries.
    oidc = await make_oidc(signup="open")
    sub = _sub()
    oidc.provider.add_user(sub, claims(f"{sub}@example.com", preferred_username=sub))
    starts = [await oidc.start() for _ in range(4)]
    backs = [(oidc.provider.authorize(authorize, sub), cookie) for authorize, cookie in starts]
    answers = await asyncio.gather(*(oidc.callback(back, cookie) for back, cookie in backs))
    assert [signin_error(a) for a in answers] == [None] * 4
    ids = {(await oidc.me(a)).json()["id"] for a in answers}
    assert len(ids) == 1


async def test_an_address_starting_too_many_sign_ins_is_sent_back_busy(
    make_oidc: MakeOidc,
) -> None:
    # Each start stores a row for an unauthenticated caller: the rate limit bounds them.
    oidc = await make_oidc(attempts_per_minute=2)
    answers = [await oidc.get("/auth/oidc/mock/login") for _ in range(3)]
    assert [a.status_code for a in answers] == [302, 302, 302]
    assert answers[0].headers["location"].startswith(oidc.provider.issuer)
    assert answers[2].headers["location"] == "/?signin_error=busy"
    assert "pantheon_oidc_state" not in answers[2].cookies
