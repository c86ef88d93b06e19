"""Shaping what a model reads back from a tool: one cap, one marker, one failure shape."""

from __future__ import annotations

from pantheon.engine.tooling import ToolResult


def cap_text(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters; a cut text ends with a marker saying how
    much was kept, so the model knows the result is incomplete."""
    if len(text) <= limit:
        return text
    marker = f"\n[truncated: result was {len(text)} characters, limit {limit}]"
    return text[: max(limit - len(marker), 0)] + marker


def failure(message: str, limit: int) -> ToolResult:
    """An ``ok=False`` result whose message is capped like any other content."""
    return ToolResult(ok=False, content=cap_text(message, limit))


def success(text: str, limit: int) -> ToolResult:
    return ToolResult(ok=True, content=cap_text(text, limit))
