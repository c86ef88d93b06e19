"""An app in keys mode with one OIDC provider, ``[oidc.mock]``, pointing at a running
``oidc-provider-mock``, and a browser's steps through a sign-in (tests/auth/test_oidc*)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import select

from pantheon.db.models import User
from pantheon.db.uow import unit_of_work
from pantheon.settings import AuthSettings
from pantheon.users.oidc_logins import STATE_COOKIE
from tests.auth.conftest import MODELS_TOML, Clients, MakeClients
from tests.auth.oidc_provider import MockProvider
from tests.auth.signin_helpers import cookie_client, database

SECRET_ENV = "PANTHEON_TEST_OIDC_SECRET"


def oidc_toml(issuer: str, extra: str = "") -> str:
    return (
        f'[oidc.mock]\nissuer = "{issuer}"\nclient_id = "pantheon"\n'
        f'client_secret_env = "{SECRET_ENV}"\nlabel = "Mock IdP"\n{extra}\n'
    )


@dataclass
class Oidc:
    users: Clients
    provider: MockProvider

    async def get(self, url: str, cookies: dict[str, str] | None = None) -> httpx.Response:
        """One request from a browser holding ``cookies`` (and nothing else)."""
        async with cookie_client(self.users.app, cookies or {}) as http:
            return await http.get(url)

    async def start(self) -> tuple[str, str]:
        """``/auth/oidc/mock/login``: the provider's authorize URL and the state cookie."""
        response = await self.get("/auth/oidc/mock/login")
        assert response.status_code == 302, response.text
        return response.headers["location"], response.cookies[STATE_COOKIE]

    async def callback(self, url: str, state_cookie: str | None) -> httpx.Response:
        return await self.get(url, {STATE_COOKIE: state_cookie} if state_cookie else {})

    async def sign_in(self, sub: str, claims: dict[str, Any]) -> httpx.Response:
        """A whole sign-in as ``sub`` with ``claims``: our callback's response."""
        self.provider.add_user(sub, claims)
        authorize, cookie = await self.start()
        return await self.callback(self.provider.authorize(authorize, sub), cookie)

    async def me(self, response: httpx.Response) -> httpx.Response:
        """``GET /v1/me`` with the cookies a callback set."""
        cookies = {n: response.cookies[n] for n in ("pantheon_session", "pantheon_csrf")}
        return await self.get("/v1/me", cookies)

    async def user_by_email(self, email: str) -> User | None:
        async with unit_of_work(database(self.users.app), write=False) as session:
            return await session.scalar(select(User).where(User.email == email))


MakeOidc = Callable[..., Awaitable[Oidc]]


async def start_oidc(
    make_clients: MakeClients,
    provider: MockProvider,
    directory: Path,
    signup: str = "closed",
    extra: str = "",
    attempts_per_minute: int = 10,
) -> Oidc:
    config = directory / "pantheon.toml"
    config.write_text(MODELS_TOML + oidc_toml(provider.issuer, extra))
    auth = AuthSettings(signup=signup, login_attempts_per_minute=attempts_per_minute)
    users = await make_clients(config_file=config, auth=auth)
    return Oidc(users, provider)


def claims(email: str, **more: Any) -> dict[str, Any]:
    return {"email": email, "email_verified": True, "name": email.split("@")[0].title(), **more}


def signin_error(response: httpx.Response) -> str | None:
    """The ``signin_error`` a callback redirected to (``None``: to ``/`` signed in)."""
    assert response.status_code == 302, response.text
    location = response.headers["location"]
    if location == "/":
        return None
    assert location.startswith("/?signin_error="), location
    assert "pantheon_session" not in response.cookies
    return location.removeprefix("/?signin_error=")
