"""Sign-ins under way between ``/auth/oidc/NAME/login`` and its callback.

The login makes a random ``state`` (256 bits), ``nonce`` and PKCE verifier, stores the
row by the state's SHA-256, and gives the state to the browser twice: in the URL the
provider sends back, and in a short-lived HttpOnly cookie (``STATE_COOKIE``). The callback
needs both to agree (so a callback URL carried to another browser does nothing), then
deletes the row: a state is used once, and expires after ``LOGIN_TTL``.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from pantheon.db.base import utcnow
from pantheon.db.oidc_models import OidcLogin
from pantheon.secret_tokens import new_token, token_digest

STATE_COOKIE = "pantheon_oidc_state"
LOGIN_TTL = timedelta(minutes=10)


@dataclass(frozen=True, slots=True)
class PendingLogin:
    state: str
    nonce: str
    code_verifier: str  # RFC 7636: 43 to 128 characters


def new_login() -> PendingLogin:
    """Fresh random values for one sign-in."""
    return PendingLogin(new_token(), new_token(), new_token(48))


async def store_login(session: AsyncSession, provider: str, pending: PendingLogin) -> None:
    """Keep ``pending`` for its callback; expired rows of abandoned sign-ins go first."""
    now = utcnow()
    await session.execute(delete(OidcLogin).where(OidcLogin.expires_at <= now))
    session.add(
        OidcLogin(
            state_hash=token_digest(pending.state),
            provider=provider,
            nonce=pending.nonce,
            code_verifier=pending.code_verifier,
            created_at=now,
            expires_at=now + LOGIN_TTL,
        )
    )


async def take_login(
    session: AsyncSession, provider: str, state: str | None, cookie: str | None
) -> PendingLogin | None:
    """The sign-in ``state`` names, removed so it cannot serve twice; ``None`` when the
    state is missing, differs from this browser's cookie, is unknown, used, expired or
    another provider's."""
    if not state or not cookie or not hmac.compare_digest(state.encode(), cookie.encode()):
        return None
    state_hash = token_digest(state)
    row = await session.scalar(select(OidcLogin).where(OidcLogin.state_hash == state_hash))
    if row is None:
        return None
    result = await session.execute(delete(OidcLogin).where(OidcLogin.state_hash == state_hash))
    if int(getattr(result, "rowcount", 0)) != 1:  # a concurrent callback took it first
        return None
    if row.provider != provider or row.expires_at <= utcnow():
        return None
    return PendingLogin(state, row.nonce, row.code_verifier)
