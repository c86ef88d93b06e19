"""Password hashing for sign-in: argon2id through ``pwdlib``, always off the event loop.

An argon2 hash takes tens of milliseconds of CPU on purpose (that is what makes a leaked
hash slow to guess), so every hash and verify runs in a worker thread. An unknown login is
verified against a dummy hash, so it costs the same time as a wrong password.
"""

from __future__ import annotations

import asyncio

from pwdlib import PasswordHash

from pantheon.errors import Unprocessable

MIN_LENGTH = 12
MAX_LENGTH = 1024  # argon2 reads all of it: a cap keeps one request's CPU bounded

_hasher = PasswordHash.recommended()
_DUMMY_HASH = _hasher.hash("a password nobody has, for unknown logins")


def check_password_length(password: str) -> None:
    """422 unless the new password's length is within the bounds."""
    if not MIN_LENGTH <= len(password) <= MAX_LENGTH:
        raise Unprocessable(
            f"a password needs {MIN_LENGTH} to {MAX_LENGTH} characters; got {len(password)}"
        )


async def hash_password(password: str) -> str:
    """The stored form of a password (argon2id, with its own salt and parameters)."""
    return await asyncio.to_thread(_hasher.hash, password)


async def verify_password(password: str, stored: str | None) -> bool:
    """Whether ``password`` matches; with no stored hash, as slow a ``False`` as a miss."""
    if len(password) > MAX_LENGTH:
        return False
    if stored is None:
        await asyncio.to_thread(_hasher.verify, password, _DUMMY_HASH)
        return False
    return await asyncio.to_thread(_hasher.verify, password, stored)
