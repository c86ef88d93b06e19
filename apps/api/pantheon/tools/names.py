"""Model-visible tool names: the one pattern (OpenAI's) and how foreign names are made to fit.

Built-ins are registered under a name that already matches; MCP tools become
``<server>__<tool>`` with every other character replaced, so a model never sees a name its
provider would reject.
"""

from __future__ import annotations

import hashlib
import re

NAME_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
MAX_NAME_CHARS = 64
SERVER_SEPARATOR = "__"

_NAME_RE = re.compile(NAME_PATTERN)
_DISALLOWED = re.compile(r"[^A-Za-z0-9_-]")


def is_model_name(name: str) -> bool:
    """Whether ``name`` may be shown to a model as a tool name."""
    return _NAME_RE.fullmatch(name) is not None


def mcp_model_name(server: str, tool: str) -> str:
    """``<server>__<tool>`` with disallowed characters as ``_``; a name that is too long is
    cut and ends with a short hash of the original, so two long names stay distinct."""
    name = _DISALLOWED.sub("_", f"{server}{SERVER_SEPARATOR}{tool}")
    if len(name) <= MAX_NAME_CHARS:
        return name
    digest = hashlib.sha256(f"{server}/{tool}".encode()).hexdigest()[:8]
    return f"{name[: MAX_NAME_CHARS - 9]}_{digest}"
