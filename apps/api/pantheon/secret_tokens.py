"""Random secrets shown once and stored only by their digest: API keys, sign-in sessions,
invitations, share links, and the states of OIDC sign-ins and MCP OAuth connects. One way
to make them and one way to store them, so a database dump shares nothing."""

from __future__ import annotations

import hashlib
import secrets

TOKEN_BYTES = 32  # 256 random bits: guessing one is infeasible, so a fast hash suffices


def new_token(nbytes: int = TOKEN_BYTES) -> str:
    """A URL-safe random token of ``nbytes`` bytes."""
    return secrets.token_urlsafe(nbytes)


def token_digest(token: str) -> str:
    """What is stored of a token: its SHA-256, in hex."""
    return hashlib.sha256(token.encode()).hexdigest()
