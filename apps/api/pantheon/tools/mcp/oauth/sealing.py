"""Tokens encrypted at rest: Fernet (AES-128-CBC + HMAC-SHA256) under a key derived from
``PANTHEON_SECRET_KEY`` with HKDF-SHA256 and a purpose label, so the same secret used
elsewhere later yields a different key. There is no key ring: changing the secret makes
every stored token unreadable, and those users simply connect again (docs/security.md)."""

from __future__ import annotations

import base64

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

PURPOSE = b"pantheon mcp oauth tokens v1"
MIN_SECRET_CHARS = 32


class SecretKeyMissing(ValueError):
    """``PANTHEON_SECRET_KEY`` is unset or too short for a server that needs it."""


class Sealer:
    """Seal and open small secrets (token sets) with one derived key."""

    def __init__(self, secret: str) -> None:
        if len(secret) < MIN_SECRET_CHARS:
            raise SecretKeyMissing(
                f"PANTHEON_SECRET_KEY must be at least {MIN_SECRET_CHARS} characters"
            )
        derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=PURPOSE).derive(
            secret.encode()
        )
        self._fernet = Fernet(base64.urlsafe_b64encode(derived))

    def seal(self, plain: str) -> str:
        return self._fernet.encrypt(plain.encode()).decode("ascii")

    def open(self, sealed: str) -> str | None:
        """The plain text, or ``None`` when it was sealed under another key or altered."""
        try:
            return self._fernet.decrypt(sealed.encode("ascii")).decode()
        except (InvalidToken, ValueError):
            return None
