"""Who is calling.

``keys`` mode: every API route needs ``Authorization: Bearer <key>``. The key is found by
its clear prefix, then its SHA-256 digest is compared in constant time; a revoked key fails
at once because nothing is cached (one small indexed read per request). Missing, malformed,
unknown and revoked keys all answer 401 with ``WWW-Authenticate: Bearer``.

``local`` mode: no credentials; everything belongs to one built-in local user. It is only
safe on a loopback address, which ``pantheon serve`` enforces (``is_loopback_host``).
"""

from __future__ import annotations

import ipaddress
import uuid
from dataclasses import dataclass

from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy import bindparam, select
from sqlalchemy.exc import IntegrityError

from pantheon.db.engine import Database
from pantheon.db.models import ApiKey, User
from pantheon.db.uow import unit_of_work
from pantheon.errors import Unauthorized
from pantheon.users.keys import hash_key, matches, prefix_of

LOCAL_USER_NAME = "local"
CHALLENGE = {"WWW-Authenticate": 'Bearer realm="pantheon"'}
# Declares the scheme in OpenAPI (the "Authorize" button in /docs); errors are ours.
bearer_scheme = HTTPBearer(auto_error=False, description="An API key: pk_xxxxxxxx_...")
# Compared against when the prefix is unknown, so both paths hash and compare once.
_DUMMY_HASH = hash_key("pk_00000000_unknown")
_keys, _users = ApiKey.__table__.c, User.__table__.c
# Every request in keys mode: the key and its owner in one read, built once.
_KEY_OWNER = (
    select(_keys.id, _keys.prefix, _keys.key_hash, _keys.revoked_at, _keys.user_id, _users.is_admin)
    .join_from(ApiKey.__table__, User.__table__, _users.id == _keys.user_id)
    .where(_keys.prefix == bindparam("prefix"))
)


@dataclass(frozen=True, slots=True)
class Principal:
    """The authenticated caller: a user, and the key used (``None`` in local mode)."""

    user_id: uuid.UUID
    is_admin: bool
    key_id: uuid.UUID | None = None

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
        found = await session.scalar(select(User).where(User.name == LOCAL_USER_NAME))
        if found is None:
            found = User(name=LOCAL_USER_NAME, is_admin=True)
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
    return Principal(user_id=row.user_id, is_admin=row.is_admin, key_id=row.id)


async def authenticate(db: Database, credentials: HTTPAuthorizationCredentials | None) -> Principal:
    """The caller in ``keys`` mode; ``credentials`` from ``bearer_scheme``."""
    if credentials is None or not credentials.credentials:
        raise _unauthorized("missing API key: send 'Authorization: Bearer <key>'")
    return await principal_for_key(db, credentials.credentials)


def is_loopback_host(host: str) -> bool:
    """True for ``localhost``, 127.0.0.0/8 and ::1."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
