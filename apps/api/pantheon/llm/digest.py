"""A call's fingerprint: what a replay matches a new request against a recorded one by.

Two requests with the same digest would be sent upstream identically (alias, messages,
tools, parameters); ``agent_key`` and ``purpose`` are part of it too, because they pick
the scripted provider's reply and say whose call it is. Fencing is how a request is
sent, not what it asks (``llm/fence.py``): the digest reads spans as their bare text and
never sees the turn's boundary token, so a replay matches whatever token it draws.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pantheon.llm.fence import plain
from pantheon.llm.types import LLMRequest


def _request_data(request: LLMRequest) -> dict[str, Any]:
    fmt = request.response_format
    return {
        "model": request.model,
        "purpose": request.purpose,
        "agent_key": request.agent_key,
        "max_tokens": request.max_tokens,
        "temperature": request.temperature,
        "messages": [
            [
                m.role,
                plain(m.content),
                [[c.id, c.name, c.arguments] for c in m.tool_calls],
                m.tool_call_id,
            ]
            for m in request.messages
        ],
        "tools": [[t.name, t.description, dict(t.parameters)] for t in request.tools],
        "response_format": None if fmt is None else [fmt.name, dict(fmt.schema)],
    }


def request_digest(request: LLMRequest) -> str:
    """SHA-256 (hex) of the request's canonical JSON."""
    text = json.dumps(_request_data(request), sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()
