"""Who an OIDC sign-in is: the user linked to the provider's subject, else the user with
the same verified email (an admin's invitation), else a new user by the signup rule
``PANTHEON_AUTH__SIGNUP``: ``closed`` refuses, ``pending`` makes a pending user, ``open``
an active member. Never commits (the caller's unit of work does).

An email counts only with ``email_verified: true``: a provider that lets people type any
address would otherwise let them take over the account an admin made for it. The
provider's ``allowed_domains`` are checked on every sign-in, linked or not; its
``admin_group`` in the ``groups`` claim makes the user an admin (never the reverse: an
admin demotes in Pantheon).
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from pantheon.db.base import utcnow
from pantheon.db.models import User, UserStatus
from pantheon.db.oidc_models import OidcIdentity
from pantheon.settings import AuthSettings
from pantheon.users.oidc_config import OidcProvider
from pantheon.users.oidc_errors import SigninError, SigninRefused
from pantheon.users.repository import UserRepository

_NOT_LOGIN = re.compile(r"[^a-z0-9._-]+")
NEW_STATUS: dict[str, UserStatus] = {"pending": "pending", "open": "active"}


@dataclass(frozen=True, slots=True)
class Person:
    """What a validated ID token says about the person."""

    subject: str
    email: str | None  # only a verified one
    name: str
    login_hint: str
    groups: tuple[str, ...]


def person_from(claims: dict[str, Any]) -> Person:
    raw_email, name, groups = claims.get("email"), claims.get("name"), claims.get("groups")
    email = None
    if claims.get("email_verified") is True and isinstance(raw_email, str) and "@" in raw_email:
        email = raw_email.strip().lower()
    hint = claims.get("preferred_username")
    if not isinstance(hint, str) or not hint:
        hint = email.split("@")[0] if email else ""
    return Person(
        subject=str(claims["sub"]),
        email=email,
        name=name if isinstance(name, str) else "",
        login_hint=hint,
        groups=tuple(g for g in groups if isinstance(g, str)) if isinstance(groups, list) else (),
    )


async def resolve_user(
    session: AsyncSession, provider: OidcProvider, person: Person, auth: AuthSettings
) -> User:
    """The user this sign-in is (created or linked as needed), whatever its status;
    ``SigninRefused`` when the domain is not allowed or sign-up is closed to them."""
    if provider.allowed_domains and (
        person.email is None or person.email.rsplit("@", 1)[1] not in provider.allowed_domains
    ):
        raise SigninRefused(SigninError.DOMAIN, f"{person.email} not in allowed_domains")
    repo = UserRepository(session)
    identity = await session.scalar(
        select(OidcIdentity).where(
            OidcIdentity.provider == provider.name, OidcIdentity.subject == person.subject
        )
    )
    user = await repo.get(identity.user_id) if identity is not None else None
    if identity is None or user is None:
        user = await _by_email(session, person.email) or await _signed_up(repo, person, auth)
        identity = OidcIdentity(
            provider=provider.name, subject=person.subject, user_id=user.id, created_at=utcnow()
        )
        session.add(identity)
    identity.email = person.email
    identity.last_signin_at = utcnow()
    if provider.admin_group is not None and provider.admin_group in person.groups:
        user.role = "admin"
    await session.flush()
    return user


async def _by_email(session: AsyncSession, email: str | None) -> User | None:
    """The one user with this (verified) email; none when absent or ambiguous."""
    if email is None:
        return None
    found = list(await session.scalars(select(User).where(func.lower(User.email) == email)))
    return found[0] if len(found) == 1 else None


async def _signed_up(repo: UserRepository, person: Person, auth: AuthSettings) -> User:
    status = NEW_STATUS.get(auth.signup)
    if status is None:
        raise SigninRefused(SigninError.REFUSED, "sign-up is closed and nobody invited them")
    login = await _free_login(repo, person.login_hint)
    user = User(
        login=login,
        email=person.email,
        display_name=person.name or login,
        role="member",
        status=status,
        created_at=utcnow(),
    )
    repo.add(user)
    await repo.session.flush()
    return user


async def _free_login(repo: UserRepository, hint: str) -> str:
    """``hint`` made a login (lower case, letters, digits, ``._-``), with a random suffix
    when it is taken."""
    base = _NOT_LOGIN.sub("-", hint.strip().lower()).strip("-._")[:80] or "user"
    login = base
    while await repo.by_login(login) is not None:
        login = f"{base}-{secrets.token_hex(3)}"
    return login
