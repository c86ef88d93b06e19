"""API key format, generation and hashing.

A key looks like ``pk_1a2b3c4d_<43 url-safe characters>``. The first 11 characters
(``pk_1a2b3c4d``) are the *prefix*: stored in clear, unique, shown in listings and used to
find the row. The whole key is stored only as its SHA-256 digest. A slow password hash
(bcrypt, argon2) is unnecessary here: the secret part carries 256 bits from
``secret_tokens.new_token``, so a leaked digest cannot be brute-forced, and a fast hash
keeps authentication cheap on every request.
"""

from __future__ import annotations

import hmac
import secrets

from pantheon.secret_tokens import new_token, token_digest

KEY_MARKER = "pk_"
PREFIX_LENGTH = len(KEY_MARKER) + 8


def generate_key() -> tuple[str, str]:
    """A new ``(key, prefix)``; the key is shown to its owner once and never stored."""
    prefix = f"{KEY_MARKER}{secrets.token_hex(4)}"
    return f"{prefix}_{new_token()}", prefix


def prefix_of(key: str) -> str | None:
    """The lookup prefix of a well-formed key, else ``None``."""
    if not key.startswith(KEY_MARKER) or len(key) <= PREFIX_LENGTH + 1:
        return None
    if key[PREFIX_LENGTH] != "_":
        return None
    return key[:PREFIX_LENGTH]


def matches(key: str, stored_hash: str) -> bool:
    """Constant-time comparison of a presented key with a stored digest."""
    return hmac.compare_digest(token_digest(key), stored_hash)
