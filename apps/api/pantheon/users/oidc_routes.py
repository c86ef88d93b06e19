"""OIDC sign-in routes (public): ``GET /auth/providers``, ``GET /auth/oidc/{name}/login``
and its ``/callback`` (docs/adr/0041, docs/security.md).

The login answers 302 to the provider; the callback answers 302 to ``/`` with the same
session and CSRF cookies a password sign-in sets, or to ``/?signin_error=<code>``
(``SigninError``). Provider requests run outside any database transaction.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import RedirectResponse
from pydantic import BaseModel
from sqlalchemy.exc import IntegrityError

from pantheon.db.uow import unit_of_work
from pantheon.deps import ServicesDep
from pantheon.errors import NotFound
from pantheon.users.login_sessions import open_session
from pantheon.users.oidc import OidcClients, ProviderError, TokenInvalid
from pantheon.users.oidc_accounts import person_from, resolve_user
from pantheon.users.oidc_config import OidcProvider
from pantheon.users.oidc_errors import SigninError, SigninRefused
from pantheon.users.oidc_logins import LOGIN_TTL, STATE_COOKIE, new_login, store_login, take_login
from pantheon.users.signin import set_session_cookies

oidc_router = APIRouter(prefix="/auth", tags=["sign-in"])
log = logging.getLogger("pantheon.users.oidc")
RESOLVE_ATTEMPTS = 3  # a first sign-in that lost a race tries again and finds the link
FOUND = 302


class ProviderRead(BaseModel):
    name: str
    label: str


class ProvidersRead(BaseModel):
    password: bool
    oidc: list[ProviderRead]


def _clients(services: ServicesDep) -> OidcClients:
    return services.oidc


OidcDep = Annotated[OidcClients, Depends(_clients)]


def _provider(services: ServicesDep, clients: OidcDep, name: str) -> OidcProvider:
    if services.settings.auth_mode != "keys":
        raise NotFound("no sign-in in local mode (PANTHEON_AUTH_MODE=local needs none)")
    provider = clients.get(name)
    if provider is None:
        raise NotFound(f"no OIDC provider named '{name}' (the config file's [oidc.NAME])")
    return provider


ProviderDep = Annotated[OidcProvider, Depends(_provider)]


def _failed(code: SigninError) -> RedirectResponse:
    return RedirectResponse(f"/?signin_error={code.value}", status_code=FOUND)


def _state_path(name: str) -> str:
    return f"/auth/oidc/{name}"


@oidc_router.get("/providers")
async def providers(services: ServicesDep, clients: OidcDep) -> ProvidersRead:
    """How people sign in here: password, and the configured OIDC providers."""
    if services.settings.auth_mode != "keys":
        return ProvidersRead(password=False, oidc=[])
    listed = [ProviderRead(name=p.name, label=p.label) for p in clients.providers.values()]
    return ProvidersRead(password=True, oidc=listed)


@oidc_router.get(
    "/oidc/{name}/login", status_code=FOUND, response_class=RedirectResponse, name="oidc_login"
)
async def oidc_login(
    request: Request, services: ServicesDep, clients: OidcDep, provider: ProviderDep
) -> RedirectResponse:
    """Start signing in with the provider: 302 to its authorization endpoint."""
    if await _too_many_starts(services, request):
        return _failed(SigninError.BUSY)
    pending = new_login()
    callback = str(request.url_for("oidc_callback", name=provider.name))
    try:
        url = await clients.authorization_url(
            provider, callback, pending.state, pending.nonce, pending.code_verifier
        )
    except ProviderError as exc:
        log.warning("OIDC provider %s unusable: %s", provider.name, exc)
        return _failed(SigninError.PROVIDER)
    async with unit_of_work(services.db, write=True) as session:
        await store_login(session, provider.name, pending)
    response = RedirectResponse(url, status_code=FOUND)
    response.set_cookie(
        STATE_COOKIE,
        pending.state,
        max_age=int(LOGIN_TTL.total_seconds()),
        path=_state_path(provider.name),
        httponly=True,
        samesite="lax",  # sent on the provider's top-level redirect back to us
        secure=request.url.scheme == "https",
    )
    return response


async def _too_many_starts(services: ServicesDep, request: Request) -> bool:
    """Each start stores a row (``oidc_logins``) for anyone who asks, so an address starts
    at most ``PANTHEON_AUTH__LOGIN_ATTEMPTS_PER_MINUTE`` sign-ins a minute."""
    address = request.client.host if request.client else "unknown"
    per_minute = services.settings.auth.login_attempts_per_minute
    return await services.rate_limiter.allow(f"signin:oidc:{address}", per_minute) is not None


@oidc_router.get(
    "/oidc/{name}/callback",
    status_code=FOUND,
    response_class=RedirectResponse,
    name="oidc_callback",
)
async def oidc_callback(
    request: Request,
    services: ServicesDep,
    clients: OidcDep,
    provider: ProviderDep,
    state: str | None = None,
    code: str | None = None,
    error: str | None = None,
) -> RedirectResponse:
    """Where the provider sends the browser back: 302 to ``/`` signed in, or to
    ``/?signin_error=<code>``."""
    try:
        session_id = await _sign_in(request, services, clients, provider, state, code, error)
    except SigninRefused as refused:
        log.info("OIDC sign-in with %s refused (%s): %s", provider.name, refused.code, refused)
        response = _failed(refused.code)
    else:
        response = RedirectResponse("/", status_code=FOUND)
        set_session_cookies(response, request, session_id, services.settings.auth.session_ttl_s)
    response.delete_cookie(STATE_COOKIE, path=_state_path(provider.name))
    return response


async def _sign_in(
    request: Request,
    services: ServicesDep,
    clients: OidcClients,
    provider: OidcProvider,
    state: str | None,
    code: str | None,
    error: str | None,
) -> str:
    """The new session's id; ``SigninRefused`` for every way it can fail."""
    async with unit_of_work(services.db, write=True) as session:
        pending = await take_login(session, provider.name, state, request.cookies.get(STATE_COOKIE))
    if pending is None:
        raise SigninRefused(SigninError.STATE, "state missing, altered, expired or used")
    if error is not None or not code:
        raise SigninRefused(SigninError.DENIED, f"provider answered error={error}")
    callback = str(request.url_for("oidc_callback", name=provider.name))
    try:
        id_token = await clients.exchange(provider, callback, code, pending.code_verifier)
        claims = await clients.claims(provider, id_token, pending.nonce)
    except ProviderError as exc:
        raise SigninRefused(SigninError.PROVIDER, str(exc)) from exc
    except TokenInvalid as exc:
        raise SigninRefused(SigninError.TOKEN, str(exc)) from exc
    return await _open_session(services, provider, claims)


async def _open_session(
    services: ServicesDep, provider: OidcProvider, claims: dict[str, Any]
) -> str:
    """A session for the person the claims name. Two first sign-ins of one person at once
    both find no link and both make one; the database keeps one, and the loser's next
    attempt finds it (``RESOLVE_ATTEMPTS``), so neither answer is a server error."""
    for attempt in range(1, RESOLVE_ATTEMPTS + 1):
        try:
            return await _resolve_and_open(services, provider, claims)
        except IntegrityError as exc:
            if attempt == RESOLVE_ATTEMPTS:
                raise SigninRefused(SigninError.PROVIDER, "could not link the account") from exc
    raise AssertionError("unreachable")


async def _resolve_and_open(
    services: ServicesDep, provider: OidcProvider, claims: dict[str, Any]
) -> str:
    auth = services.settings.auth
    session_id: str | None = None
    async with unit_of_work(services.db, write=True) as session:
        user = await resolve_user(session, provider, person_from(claims), auth)
        user_id, status = user.id, user.status
        if status == "active":
            session_id = await open_session(session, user_id, auth.session_ttl_s)
    if session_id is None:  # the link or the new pending account stays; no session
        raise SigninRefused(_STATUS_ERRORS[status], f"user {user_id} is {status}")
    return session_id


_STATUS_ERRORS = {"pending": SigninError.PENDING, "disabled": SigninError.DISABLED}
