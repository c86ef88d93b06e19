from __future__ import annotations

from pantheon.llm.tokens import MESSAGE_OVERHEAD_TOKENS, estimate_messages, estimate_tokens
from pantheon.llm.types import ChatMessage


def test_estimate_tokens_is_about_a_quarter_of_the_chars() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("a") == 1
    assert estimate_tokens("abcd") == 1
    assert estimate_tokens("abcde") == 2
    assert estimate_tokens("x" * 400) == 100


def test_estimate_messages_adds_a_per_message_overhead() -> None:
    messages = [ChatMessage("system", "abcd"), ChatMessage("user", "")]
    assert estimate_messages(messages) == 1 + 2 * MESSAGE_OVERHEAD_TOKENS
    assert estimate_messages([]) == 0
