"""Idempotency-Key: one rule, checked wherever an earlier turn with the key can be found.

A key names one request body. The same key and body return the earlier turn (running or
finished); the same key with another body is a client error, never a second turn.
"""

from __future__ import annotations

import hashlib
import json

from pantheon.live.meta import ensure_same_request
from pantheon.turns.schemas import TurnCreate

__all__ = ["ensure_same_request", "request_hash"]


def request_hash(data: TurnCreate) -> str:
    """A stable digest of the request body (key order and spacing do not matter)."""
    # Fields added later count only when set, so stored digests of older bodies still match.
    later = {"rerun_from", "agent"}
    body = data.model_dump(exclude={name for name in later if getattr(data, name) is None})
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()
