"""Cheap token estimates for when an upstream reports no usage, and for prompt budgets.

The promise is "close enough for cost figures and budgets", never exact: about four
characters per token, at least one token for any non-empty text, and a small fixed
overhead per chat message for the role and separators.
"""

from __future__ import annotations

from collections.abc import Iterable

from pantheon.llm.types import ChatMessage

CHARS_PER_TOKEN = 4
MESSAGE_OVERHEAD_TOKENS = 4


def estimate_tokens(text: str) -> int:
    """About ``len(text) / 4``, rounded up; 0 only for the empty string."""
    if not text:
        return 0
    return max(1, -(-len(text) // CHARS_PER_TOKEN))


def estimate_messages(messages: Iterable[ChatMessage]) -> int:
    """The prompt size of ``messages``: their text plus a per-message overhead."""
    return sum(estimate_tokens(m.content) + MESSAGE_OVERHEAD_TOKENS for m in messages)
