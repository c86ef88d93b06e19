"""Password sign-in for people in ``keys`` mode: ``POST /auth/login`` and ``/auth/logout``,
``GET /v1/me`` and ``POST /v1/me/password``.

A sign-in answers one 401 for an unknown login, a wrong password and a user who is not
active, so nobody learns which logins exist. Attempts are counted per login and per client
address by the live rate limiter (shared by replicas when Redis is on) before any password
is checked. Cookie handling and the session store are ``login_sessions.py``.
"""

from __future__ import annotations

import math
import uuid
from typing import Annotated

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, Field

from pantheon.db.models import User, UserRole
from pantheon.deps import PrincipalDep, ServicesDep, UoWDep
from pantheon.errors import Forbidden, NotFound, TooManyRequests, Unauthorized
from pantheon.schemas import RequestBody
from pantheon.users.auth import CHALLENGE
from pantheon.users.login_sessions import (
    CSRF_COOKIE,
    SESSION_COOKIE,
    csrf_token,
    end_other_sessions,
    end_session,
    open_session,
)
from pantheon.users.passwords import MAX_LENGTH, MIN_LENGTH, hash_password, verify_password
from pantheon.users.repository import UserRepository

signin_router = APIRouter(prefix="/auth", tags=["sign-in"])  # login is public
me_router = APIRouter(tags=["sign-in"])  # behind authentication (server/api.py)
WRONG = "wrong login or password"  # the only answer a failed sign-in gets


class LoginBody(RequestBody):
    login: Annotated[str, Field(min_length=1, max_length=100)]
    password: Annotated[str, Field(min_length=1, max_length=MAX_LENGTH)]


class PasswordBody(RequestBody):
    current: Annotated[str, Field(max_length=MAX_LENGTH)]
    new: Annotated[str, Field(min_length=MIN_LENGTH, max_length=MAX_LENGTH)]


class MeRead(BaseModel):
    id: uuid.UUID
    login: str
    email: str | None
    display_name: str
    role: UserRole


def read_me(user: User) -> MeRead:
    return MeRead(
        id=user.id,
        login=user.login,
        email=user.email,
        display_name=user.display_name,
        role=user.role,
    )


async def _limit_attempts(services: ServicesDep, login: str, request: Request) -> None:
    """429 with ``Retry-After`` once a login or an address has tried too often this minute."""
    per_minute = services.settings.auth.login_attempts_per_minute
    address = request.client.host if request.client else "unknown"
    for key in (f"signin:login:{login.casefold()}", f"signin:addr:{address}"):
        wait = await services.rate_limiter.allow(key, per_minute)
        if wait is not None:
            retry_after = max(1, math.ceil(wait))
            raise TooManyRequests(
                f"too many sign-in attempts: {per_minute} per minute per login and per "
                f"address (PANTHEON_AUTH__LOGIN_ATTEMPTS_PER_MINUTE); retry in {retry_after} s",
                headers={"Retry-After": str(retry_after)},
                limit=per_minute,
            )


def set_session_cookies(response: Response, request: Request, session_id: str, ttl_s: int) -> None:
    """The session cookie (HttpOnly) and the CSRF cookie of a new sign-in (password or OIDC)."""
    secure = request.url.scheme == "https"
    response.set_cookie(
        SESSION_COOKIE, session_id, max_age=ttl_s, httponly=True, samesite="lax", secure=secure
    )
    # Readable by the page (not HttpOnly): it repeats it in X-CSRF-Token.
    response.set_cookie(CSRF_COOKIE, csrf_token(), max_age=ttl_s, samesite="lax", secure=secure)


@signin_router.post("/login", status_code=200)
async def login(
    body: LoginBody, request: Request, response: Response, services: ServicesDep, uow: UoWDep
) -> MeRead:
    """Sign in with a password: a new session cookie (and CSRF cookie) on success."""
    if services.settings.auth_mode != "keys":
        raise NotFound("no sign-in in local mode (PANTHEON_AUTH_MODE=local needs none)")
    await _limit_attempts(services, body.login, request)
    user = await UserRepository(uow).by_login(body.login)
    valid = await verify_password(body.password, user.password_hash if user else None)
    if user is None or not valid or user.status != "active":
        raise Unauthorized(WRONG, headers=CHALLENGE)
    ttl_s = services.settings.auth.session_ttl_s
    set_session_cookies(response, request, await open_session(uow, user.id, ttl_s), ttl_s)
    return read_me(user)


@me_router.post("/auth/logout", status_code=204)
async def logout(principal: PrincipalDep, uow: UoWDep, response: Response) -> None:
    """End this browser's session: its cookie no longer signs anyone in."""
    if principal.session_hash is not None:
        await end_session(uow, principal.session_hash)
    response.delete_cookie(SESSION_COOKIE)
    response.delete_cookie(CSRF_COOKIE)


@me_router.get("/v1/me")
async def me(principal: PrincipalDep, uow: UoWDep) -> MeRead:
    """Who is calling, by session cookie or by API key."""
    user = await UserRepository(uow).get(principal.user_id)
    if user is None:  # the local user always exists; a key's or session's owner too
        raise NotFound("no such user")
    return read_me(user)


@me_router.post("/v1/me/password", status_code=204)
async def change_password(
    body: PasswordBody,
    request: Request,
    principal: PrincipalDep,
    services: ServicesDep,
    uow: UoWDep,
) -> None:
    """A new password, given the current one; every other session of the user ends."""
    user = await UserRepository(uow).get(principal.user_id)
    if user is None:
        raise NotFound("no such user")
    await _limit_attempts(services, user.login, request)
    if not await verify_password(body.current, user.password_hash):
        raise Forbidden("the current password is wrong")
    user.password_hash = await hash_password(body.new)
    await end_other_sessions(uow, user.id, keep=principal.session_hash)
