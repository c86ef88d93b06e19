"""An agent's ``tools`` entries: ``calculator``, ``server.tool``, ``server.*``, each optionally
ending in ``!`` (needs a person's approval, see SPEC "Approvals").

One parser serves both agent validation (422 on create/patch) and the tool runner, so the
two can never disagree about what an entry means.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass

SERVER_NAME_PATTERN = r"^[A-Za-z][A-Za-z0-9_-]{0,31}$"
_SERVER_RE = re.compile(SERVER_NAME_PATTERN)
# MCP tool names: letters, digits and _ - . / (the MCP spec's set, a little wider).
_MCP_TOOL_RE = re.compile(r"^[A-Za-z0-9_.\-/]{1,128}$|^\*$")
_BUILTIN_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
APPROVAL_SUFFIX = "!"


@dataclass(frozen=True, slots=True)
class ToolEntry:
    """One parsed entry: ``server`` is None for a built-in; ``tool`` is ``*`` for a whole
    server (``server.*!``: every tool of it needs approval)."""

    server: str | None
    tool: str
    needs_approval: bool

    @property
    def everything(self) -> bool:
        return self.server is not None and self.tool == "*"


def parse_entry(entry: str) -> ToolEntry:
    """Parse one entry; ``ValueError`` naming the entry and what is wrong with it."""
    body = entry.removesuffix(APPROVAL_SUFFIX)
    needs_approval = body != entry
    if "." not in body:
        if not _BUILTIN_RE.fullmatch(body):
            raise ValueError(f"malformed tool entry {entry!r}: expected a name like 'calculator'")
        return ToolEntry(None, body, needs_approval)
    server, tool = body.split(".", 1)
    if not _SERVER_RE.fullmatch(server) or not _MCP_TOOL_RE.fullmatch(tool):
        raise ValueError(f"malformed tool entry {entry!r}: expected 'server.tool' or 'server.*'")
    return ToolEntry(server, tool, needs_approval)


def validate_entries(
    entries: Iterable[str], builtins: Collection[str], servers: Collection[str]
) -> list[ToolEntry]:
    """Every entry parsed and naming a known built-in or server; ``ValueError`` naming the
    first bad entry and the available names otherwise."""
    parsed = []
    for entry in entries:
        item = parse_entry(entry)
        if item.server is None and item.tool not in builtins:
            available = ", ".join(sorted(builtins)) or "none"
            raise ValueError(f"unknown tool {item.tool!r}; built-in tools: {available}")
        if item.server is not None and item.server not in servers:
            available = ", ".join(sorted(servers)) or "none configured"
            raise ValueError(f"unknown MCP server {item.server!r}; servers: {available}")
        parsed.append(item)
    return parsed
