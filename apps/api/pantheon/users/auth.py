"""Who is calling.

``keys`` mode: every API route needs ``Authorization: Bearer <key>`` or a sign-in session
cookie (``login_sessions.py``). The key is found by its clear prefix, then its SHA-256
digest is compared in constant time; a revoked key, or any key or session of a user who is
not ``active``, fails at once because nothing is cached (one small indexed read per
request). Missing, malformed, unknown and revoked keys all answer 401 with
``WWW-Authenticate: Bearer``. A cookie request that changes state also needs the CSRF header.

``local`` mode: no credentials; everything belongs to one built-in local user. It is only
safe on a loopback address, which ``pantheon serve`` enforces (``is_loopback_host``).
"""

from __future__ import annotations

import ipaddress
import uuid
from dataclasses import dataclass

from fastapi import Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy import bindparam, select
from sqlalchemy.exc import IntegrityError

from pantheon.db.engine import Database
from pantheon.db.models import ApiKey, User
from pantheon.db.uow import unit_of_work
from pantheon.errors import Forbidden, Unauthorized
from pantheon.secret_tokens import token_digest
from pantheon.users.keys import matches, prefix_of
from pantheon.users.login_sessions import (
    CSRF_COOKIE,
    CSRF_HEADER,
    SESSION_COOKIE,
    csrf_matches,
    session_owner,
)

LOCAL_USER_NAME = "local"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
CHALLENGE = {"WWW-Authenticate": 'Bearer realm="pantheon"'}
# Declares the scheme in OpenAPI (the "Authorize" button in /docs); errors are ours.
bearer_scheme = HTTPBearer(auto_error=False, description="An API key: pk_xxxxxxxx_...")
# Compared against when the prefix is unknown, so both paths hash and compare once.
_DUMMY_HASH = token_digest("pk_00000000_unknown")
_keys, _users = ApiKey.__table__.c, User.__table__.c
# Every request in keys mode: the key and its owner in one read, built once.
_KEY_OWNER = (
    select(_keys.id, _keys.prefix, _keys.key_hash, _keys.revoked_at, _keys.user_id, _users.role)
    .join_from(ApiKey.__table__, User.__table__, _users.id == _keys.user_id)
    .where(_keys.prefix == bindparam("prefix"), _users.status == "active")
)
_NOT_SIGNED_IN = "not signed in: the session has ended or expired; sign in again"


@dataclass(frozen=True, slots=True)
class Principal:
    """The authenticated caller: a user, and the key or sign-in session used (neither in
    local mode)."""

    user_id: uuid.UUID
    is_admin: bool
    key_id: uuid.UUID | None = None
    session_hash: str | None = None  # set when the caller came with a session cookie

    @property
    def limit_key(self) -> str:
        """What rate limits count against: the key, or the user without one."""
        return f"key:{self.key_id}" if self.key_id is not None else f"user:{self.user_id}"


async def ensure_local_user(db: Database) -> uuid.UUID:
    """The built-in owner of everything in local mode; created once. Workers starting
    together on a new database race to create it: the one that loses reads the winner's."""
    try:
        return await _local_user(db)
    except IntegrityError:  # another process created it between our read and our insert
        return await _local_user(db)


async def _local_user(db: Database) -> uuid.UUID:
    async with unit_of_work(db, write=True) as session:
        found = await session.scalar(select(User).where(User.login == LOCAL_USER_NAME))
        if found is None:
            found = User(login=LOCAL_USER_NAME, role="admin")
            session.add(found)
            await session.flush()
        return found.id


def _unauthorized(message: str) -> Unauthorized:
    return Unauthorized(message, headers=CHALLENGE)


async def principal_for_key(db: Database, key: str) -> Principal:
    """The owner of a live key, or 401."""
    prefix = prefix_of(key)
    row = None
    if prefix is not None:
        async with unit_of_work(db, write=False) as session:
            row = (await session.execute(_KEY_OWNER, {"prefix": prefix})).first()
    valid = matches(key, row.key_hash if row is not None else _DUMMY_HASH)
    if row is None or not valid:
        raise _unauthorized("invalid API key")
    if row.revoked_at is not None:
        raise _unauthorized(f"API key {row.prefix} has been revoked")
    return Principal(user_id=row.user_id, is_admin=row.role == "admin", key_id=row.id)


async def authenticate(
    db: Database, credentials: HTTPAuthorizationCredentials | None, request: Request
) -> Principal:
    """The caller in ``keys`` mode: by bearer key (``bearer_scheme``), else by session cookie."""
    if credentials is not None and credentials.credentials:
        return await principal_for_key(db, credentials.credentials)
    raw = request.cookies.get(SESSION_COOKIE)
    if not raw:
        raise _unauthorized(
            "missing API key: send 'Authorization: Bearer <key>', or sign in (POST /auth/login)"
        )
    owner = await session_owner(db, raw)
    if owner is None:
        raise _unauthorized(_NOT_SIGNED_IN)
    if request.method not in SAFE_METHODS:
        check_csrf(request)
    id_hash, user_id, role = owner
    return Principal(user_id=user_id, is_admin=role == "admin", session_hash=id_hash)


def check_csrf(request: Request) -> None:
    """403 unless a cookie-authenticated request that changes state repeats the CSRF cookie
    in its header: a cross-site form or script can send the cookie but not read it."""
    if not csrf_matches(request.cookies.get(CSRF_COOKIE), request.headers.get(CSRF_HEADER)):
        raise Forbidden(
            f"missing or wrong {CSRF_HEADER} header: a request signed in by cookie that "
            f"changes state must repeat the {CSRF_COOKIE} cookie in it"
        )


def is_loopback_host(host: str) -> bool:
    """True for ``localhost``, 127.0.0.0/8 and ::1."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
