"""A model's prompt window: its size, the part kept free for the reply, and its counter.

Promise: ``prompt_tokens`` is what a prompt may take, the alias' ``context_window`` minus
the reply reserve: the alias' ``max_tokens`` when it has one, else
``context.reply_reserve_tokens`` (default 1024) but at most a quarter of the window.
"""

from __future__ import annotations

from dataclasses import dataclass

from pantheon.llm.tokenizers import ESTIMATOR, TokenCounter
from pantheon.llm.types import ModelAlias

DEFAULT_RESERVE_TOKENS = 1024


def reply_reserve(alias: ModelAlias, default_reserve: int = DEFAULT_RESERVE_TOKENS) -> int:
    """Tokens kept free for the answer (see the module docstring)."""
    if alias.max_tokens is not None:
        return alias.max_tokens
    return min(default_reserve, alias.context_window // 4)


@dataclass(frozen=True, slots=True)
class Window:
    size: int
    reserve: int
    counter: TokenCounter = ESTIMATOR

    @classmethod
    def of(
        cls,
        alias: ModelAlias,
        counter: TokenCounter = ESTIMATOR,
        default_reserve: int = DEFAULT_RESERVE_TOKENS,
    ) -> Window:
        return cls(alias.context_window, reply_reserve(alias, default_reserve), counter)

    @classmethod
    def estimated(cls, context_window: int) -> Window:
        """A window of ``context_window`` tokens with the default reserve and the estimate."""
        return cls.of(ModelAlias(name="", context_window=context_window))

    @property
    def prompt_tokens(self) -> int:
        return max(0, self.size - self.reserve)
