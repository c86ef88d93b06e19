"""Invitations: an admin makes a person's account and hands them a one-time link
(``/invite/<token>``); ``POST /auth/invite`` with the token and a password sets their first
password and signs them in exactly as ``POST /auth/login`` does.

The token carries 256 random bits and is stored only as its SHA-256 (as sign-in session
ids and API keys are), with an expiry (``PANTHEON_AUTH__INVITE_TTL_S``). Accepting deletes
the row, and only the request whose delete removed it goes on, so a link works once even
when two requests race. An unknown, used or expired token, or one whose user is no longer
active, all get the same 400: nobody learns which it was.
"""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Annotated

from fastapi import APIRouter, Request, Response
from pydantic import Field
from sqlalchemy import CursorResult, delete, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from pantheon.db.base import utcnow
from pantheon.db.invite_models import Invite
from pantheon.db.models import User
from pantheon.deps import ServicesDep, UoWDep
from pantheon.errors import AppError, NotFound
from pantheon.schemas import RequestBody
from pantheon.secret_tokens import new_token, token_digest
from pantheon.users.login_sessions import end_other_sessions, open_session
from pantheon.users.passwords import MAX_LENGTH, MIN_LENGTH, hash_password
from pantheon.users.signin import MeRead, read_me, set_session_cookies

invite_router = APIRouter(prefix="/auth", tags=["sign-in"])  # public: the token is the proof
INVITE_PATH = "/invite/"  # the page's path for an invitation (server/web.py PAGE_PATHS)
INVALID = (
    "this invitation link is not valid: it is unknown, already used or expired; "
    "ask an admin for a new one"
)


class InvalidInvite(AppError):
    """The one answer for a token that does not open an invitation, whatever the reason."""

    status_code = 400
    code = "invalid_invite"


class InviteAccept(RequestBody):
    token: Annotated[str, Field(min_length=1, max_length=100)]
    password: Annotated[str, Field(min_length=MIN_LENGTH, max_length=MAX_LENGTH)]


async def open_invite(
    session: AsyncSession, user_id: uuid.UUID, invited_by: uuid.UUID | None, ttl_s: int
) -> str:
    """A new invitation for the user, replacing any earlier one; returns its page URL
    (``/invite/<token>``), which is never stored. Expired invitations go too."""
    now = utcnow()
    await session.execute(
        delete(Invite).where(or_(Invite.user_id == user_id, Invite.expires_at <= now))
    )
    token = new_token()
    session.add(
        Invite(
            token_hash=token_digest(token),
            user_id=user_id,
            invited_by=invited_by,
            created_at=now,
            expires_at=now + timedelta(seconds=ttl_s),
        )
    )
    await session.flush()
    return f"{INVITE_PATH}{token}"


async def end_invites(session: AsyncSession, user_id: uuid.UUID) -> None:
    """Every open invitation of the user (a disabled user's link must not outlive them)."""
    await session.execute(delete(Invite).where(Invite.user_id == user_id))


async def accept_invite(session: AsyncSession, token: str, password: str) -> User:
    """Set the invited user's password and spend the invitation; ``InvalidInvite`` else."""
    token_hash = token_digest(token)
    invite = await session.scalar(select(Invite).where(Invite.token_hash == token_hash))
    user = None if invite is None else await session.get(User, invite.user_id)
    if invite is None or invite.expires_at <= utcnow() or user is None or user.status != "active":
        raise InvalidInvite(INVALID)
    password_hash = await hash_password(password)  # in a thread; then spend the token
    spent: CursorResult[tuple[()]] = await session.execute(  # type: ignore[assignment]
        delete(Invite).where(Invite.token_hash == token_hash)
    )
    if spent.rowcount != 1:  # another request accepted it first
        raise InvalidInvite(INVALID)
    user.password_hash = password_hash
    await end_other_sessions(session, user.id, keep=None)
    return user


@invite_router.post("/invite", status_code=200)
async def accept(
    body: InviteAccept, request: Request, response: Response, services: ServicesDep, uow: UoWDep
) -> MeRead:
    """Accept an invitation: set a first password and sign in (session and CSRF cookies)."""
    if services.settings.auth_mode != "keys":
        raise NotFound("no invitations in local mode (PANTHEON_AUTH_MODE=local needs none)")
    user = await accept_invite(uow, body.token, body.password)
    ttl_s = services.settings.auth.session_ttl_s
    set_session_cookies(response, request, await open_session(uow, user.id, ttl_s), ttl_s)
    return read_me(user)
