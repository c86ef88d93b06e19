"""The one door to language models: ``stream`` and ``complete``, with retries and usage.

Promises:

- ``stream`` yields non-empty ``TextDelta`` items and complete ``ToolCall`` items, then
  exactly one ``Usage`` (estimated, ``estimated=True``, when the provider reported none).
- Retryable failures (``err.retryable``: rate limited, unavailable, timeout) are retried
  with exponential backoff and full jitter, at least ``retry_after_s`` when the upstream
  asked for it, for at most ``settings.max_attempts`` attempts in all. Once any text or
  tool call has been yielded to the caller nothing is retried: the error propagates,
  because the caller may already have shown or acted on it.
- Closing the stream early closes the provider stream at once (and so the upstream
  connection); nothing keeps running in the background.
- ``complete`` is ``stream`` folded, so the two cannot drift apart.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping
from contextlib import aclosing, asynccontextmanager
from typing import TypeVar

from pantheon.llm.errors import BadRequest, LLMError
from pantheon.llm.providers.base import Provider
from pantheon.llm.registry import ModelRegistry
from pantheon.llm.tokens import estimate_messages, estimate_tokens
from pantheon.llm.types import (
    Completion,
    LLMRequest,
    ModelAlias,
    StreamItem,
    TextDelta,
    ToolCall,
    Usage,
)
from pantheon.settings import LLMSettings

logger = logging.getLogger(__name__)

Sleep = Callable[[float], Awaitable[None]]
T = TypeVar("T")


@asynccontextmanager
async def closing_stream(items: AsyncIterator[T]) -> AsyncIterator[AsyncIterator[T]]:
    """Like ``contextlib.aclosing`` for any async iterator: ``aclose()`` it if it can."""
    try:
        yield items
    finally:
        aclose = getattr(items, "aclose", None)
        if aclose is not None:
            await aclose()


class LLMGateway:
    """Resolves aliases, picks the provider, retries, and guarantees the trailing usage."""

    def __init__(
        self,
        registry: ModelRegistry,
        providers: Mapping[str, Provider],
        settings: LLMSettings,
        *,
        sleep: Sleep = asyncio.sleep,
        rng: random.Random | None = None,
    ) -> None:
        self.registry = registry
        self.providers = providers
        self.settings = settings
        self._sleep = sleep
        self._rng = rng or random.Random()

    def resolve(self, model: str) -> tuple[ModelAlias, Provider]:
        """The alias and its provider; ``UnknownModel`` / ``BadRequest`` when missing."""
        alias = self.registry.get(model)
        provider = self.providers.get(alias.provider)
        if provider is None:
            raise BadRequest(f"no provider {alias.provider!r} for model alias {alias.name!r}")
        return alias, provider

    async def stream(self, request: LLMRequest) -> AsyncGenerator[StreamItem, None]:
        """Text deltas, then exactly one ``Usage``; see the module docstring."""
        alias, provider = self.resolve(request.model)
        texts: list[str] = []
        calls = 0
        usage: Usage | None = None
        attempt = 0
        while True:
            try:
                # If our caller stops early, close the provider stream (and upstream) now.
                async with closing_stream(provider.stream(alias, request)) as items:
                    async for item in items:
                        if isinstance(item, Usage):
                            usage = item
                        elif isinstance(item, ToolCall):
                            calls += 1
                            yield item
                        elif item.text:
                            texts.append(item.text)
                            yield item
                break
            except LLMError as err:
                attempt += 1
                if texts or calls or not err.retryable or attempt >= self.settings.max_attempts:
                    raise
                delay = self.backoff_delay(attempt - 1, err.retry_after_s)
                logger.warning(
                    "llm %s attempt %d failed (%s: %s); retrying in %.2fs",
                    alias.name,
                    attempt,
                    err.code,
                    err.message,
                    delay,
                )
                usage = None
                await self._sleep(delay)
        yield usage or self._estimate(request, "".join(texts))

    async def complete(self, request: LLMRequest) -> Completion:
        """The whole reply at once: ``stream`` folded."""
        texts: list[str] = []
        calls: list[ToolCall] = []
        usage = Usage()
        async with aclosing(self.stream(request)) as items:
            async for item in items:
                if isinstance(item, TextDelta):
                    texts.append(item.text)
                elif isinstance(item, ToolCall):
                    calls.append(item)
                else:
                    usage = item
        return Completion(text="".join(texts), usage=usage, tool_calls=tuple(calls))

    def backoff_delay(self, attempt: int, retry_after_s: float | None = None) -> float:
        """Full jitter over ``base * 2**attempt`` (capped), but at least ``retry_after_s``.

        ``attempt`` counts from 0 for the first retry. The upstream's ``Retry-After`` is
        honoured up to four times ``backoff_max_s``, so one header cannot stall a turn.
        """
        s = self.settings
        ceiling = min(s.backoff_max_s, s.backoff_base_s * 2**attempt)
        delay = self._rng.uniform(0.0, ceiling)
        if retry_after_s is not None and retry_after_s > 0:
            delay = max(delay, min(retry_after_s, s.backoff_max_s * 4))
        return delay

    @staticmethod
    def _estimate(request: LLMRequest, text: str) -> Usage:
        return Usage(
            input_tokens=estimate_messages(request.messages),
            output_tokens=estimate_tokens(text),
            estimated=True,
        )
