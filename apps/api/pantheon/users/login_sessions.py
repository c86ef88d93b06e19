"""Sign-in sessions: a random id in an HttpOnly cookie, only its SHA-256 in the database.

Each sign-in makes a new id (no session fixation); sign-out deletes the row; a disabled
user's rows stop authenticating at once because every request reads the row joined with
its user's status (one small indexed read, as for API keys). The CSRF token is a second
random value in a cookie the page can read (double submit, ``check_csrf``).
"""

from __future__ import annotations

import hmac
import uuid
from datetime import datetime, timedelta

from sqlalchemy import bindparam, delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from pantheon.db.base import utcnow
from pantheon.db.engine import Database
from pantheon.db.models import LoginSession, User
from pantheon.db.uow import unit_of_work
from pantheon.secret_tokens import new_token, token_digest

SESSION_COOKIE = "pantheon_session"
CSRF_COOKIE = "pantheon_csrf"
CSRF_HEADER = "X-CSRF-Token"
# last_seen_at is written at most this often, not on every request.
SEEN_EVERY = timedelta(minutes=1)

_sessions, _users = LoginSession.__table__.c, User.__table__.c
_SESSION_OWNER = (
    select(_sessions.user_id, _sessions.expires_at, _sessions.last_seen_at, _users.role)
    .join_from(LoginSession.__table__, User.__table__, _users.id == _sessions.user_id)
    .where(_sessions.id_hash == bindparam("id_hash"), _users.status == "active")
)


async def open_session(session: AsyncSession, user_id: uuid.UUID, ttl_s: int) -> str:
    """A new session for the user; returns its id (shown to the browser only)."""
    raw = new_token()
    now = utcnow()
    session.add(
        LoginSession(
            id_hash=token_digest(raw),
            user_id=user_id,
            created_at=now,
            last_seen_at=now,
            expires_at=now + timedelta(seconds=ttl_s),
        )
    )
    await session.flush()
    return raw


async def end_session(session: AsyncSession, id_hash: str) -> None:
    """Sign-out: the row goes, so the cookie is worthless even if kept."""
    await session.execute(delete(LoginSession).where(LoginSession.id_hash == id_hash))


async def end_other_sessions(session: AsyncSession, user_id: uuid.UUID, keep: str | None) -> None:
    """Every session of the user but ``keep`` (a password change signs out elsewhere)."""
    query = delete(LoginSession).where(LoginSession.user_id == user_id)
    if keep is not None:
        query = query.where(LoginSession.id_hash != keep)
    await session.execute(query)


async def session_owner(db: Database, raw: str) -> tuple[str, uuid.UUID, str] | None:
    """``(id hash, user id, role)`` of a live session of an active user, else ``None``."""
    id_hash = token_digest(raw)
    async with unit_of_work(db, write=False) as session:
        row = (await session.execute(_SESSION_OWNER, {"id_hash": id_hash})).first()
    now = utcnow()
    if row is None or row.expires_at <= now:
        return None
    if now - row.last_seen_at >= SEEN_EVERY:
        await _seen(db, id_hash, now)
    return id_hash, row.user_id, row.role


async def _seen(db: Database, id_hash: str, now: datetime) -> None:
    async with unit_of_work(db, write=True) as session:
        await session.execute(
            update(LoginSession).where(LoginSession.id_hash == id_hash).values(last_seen_at=now)
        )


def csrf_token() -> str:
    """A new double-submit token, set beside the session cookie at sign-in."""
    return new_token()


def csrf_matches(cookie: str | None, header: str | None) -> bool:
    """The header repeats the cookie (which a cross-site page can neither read nor set)."""
    if not cookie or not header:
        return False
    return hmac.compare_digest(cookie.encode(), header.encode())
