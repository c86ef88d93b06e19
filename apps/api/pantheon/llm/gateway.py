"""The one door to language models: ``stream`` and ``complete``, with retries and usage.

Promises:

- ``stream`` yields non-empty ``TextDelta`` items and complete ``ToolCall`` items, then
  exactly one ``Usage`` (estimated, ``estimated=True``, when the provider reported none).
- Upstream text is untrusted: every delta and tool call is passed through
  ``pantheon.text.clean_text`` (NUL and lone surrogates become U+FFFD).
- Deadlines: no wait for the next item may exceed ``stall_timeout_s`` (``Timeout``,
  retryable) when the answer streams; an answer sent whole (``providers.base.answer_streams``
  false: tools to a ``stream_tools = false`` alias) has no gap between chunks to bound, only
  the deadline. The call, retries included, ends by ``call_timeout_s`` or the turn's
  deadline (``llm.deadline``), whichever is sooner (``CallTimedOut`` or
  ``DeadlineExceeded``, final).
- Retryable failures (``err.retryable``: rate limited, unavailable, timeout) are retried
  with exponential backoff and full jitter, at least ``retry_after_s`` when the upstream
  asked for it, for at most ``settings.max_attempts`` attempts in all. A ``Retry-After``
  above ``max_retry_after_s``, or a wait that would end past the deadline, fails the call
  at once with a message saying so. Once any text or
  tool call has been yielded to the caller nothing is retried: the error propagates,
  because the caller may already have shown or acted on it.
- Closing the stream early closes the provider stream at once (and so the upstream
  connection); nothing keeps running in the background.
- Before each retry's wait ``stream`` yields a ``Retrying`` notice (the next attempt's
  number, the limit, the failed attempt's code, the wait) so a caller can say so.
- ``complete`` is ``stream`` folded, so the two cannot drift apart.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping
from contextlib import aclosing, asynccontextmanager
from dataclasses import replace
from typing import TypeVar

from pantheon.llm.deadline import current_deadline
from pantheon.llm.errors import BadRequest, CallTimedOut, DeadlineExceeded, LLMError, Timeout
from pantheon.llm.fence import present
from pantheon.llm.pacing import Expired, StallWatch
from pantheon.llm.providers.base import Provider, answer_streams
from pantheon.llm.registry import ModelRegistry
from pantheon.llm.tokens import estimate_messages, estimate_tokens
from pantheon.llm.types import (
    Completion,
    GatewayItem,
    LLMRequest,
    ModelAlias,
    Retrying,
    TextDelta,
    ToolCall,
    Usage,
)
from pantheon.observability import metrics
from pantheon.settings import LLMSettings
from pantheon.text import clean_text

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


def clean_tool_call(call: ToolCall) -> ToolCall:
    """A tool call with its upstream text made storable (``pantheon.text``)."""
    return ToolCall(clean_text(call.id), clean_text(call.name), clean_text(call.arguments))


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
        provider = self.providers.get(alias.provider_key)
        if provider is None:
            raise BadRequest(f"no provider {alias.provider_key!r} for model alias {alias.name!r}")
        return alias, provider

    def replays(self, request: LLMRequest) -> bool:
        """Whether this gateway answers ``request`` from a recorded turn without paying
        anyone (a replay's gateway, docs/replay.md); the plain gateway never does."""
        return False

    async def stream(self, request: LLMRequest) -> AsyncGenerator[GatewayItem, None]:
        """Text deltas, tool calls and retry notices, then exactly one ``Usage``; see the
        module docstring."""
        alias, provider = self.resolve(request.model)
        sent = present(request)  # fenced untrusted text (llm/fence.py): only what is sent
        deadline = self._call_deadline()
        streamed = answer_streams(provider, alias, request)
        stall_s = self.settings.stall_timeout_s if streamed else math.inf
        texts: list[str] = []
        calls = 0
        usage: Usage | None = None
        attempt = 0
        while True:
            try:
                # If our caller stops early, close the provider stream (and upstream) now.
                async with closing_stream(provider.stream(alias, sent)) as items:
                    async for item in self._paced(items, deadline, stall_s):
                        if isinstance(item, Usage):
                            usage = item
                        elif isinstance(item, ToolCall):
                            calls += 1
                            yield clean_tool_call(item)
                        elif item.text:
                            text = clean_text(item.text)
                            texts.append(text)
                            yield TextDelta(text)
                break
            except LLMError as err:
                attempt += 1
                if texts or calls or not err.retryable or attempt >= self.settings.max_attempts:
                    err.retries = attempt - 1
                    raise
                try:
                    delay = self._retry_delay(attempt - 1, err, deadline)
                except LLMError as stop:  # no retry after all
                    stop.retries = attempt - 1
                    raise
                metrics.LLM_RETRIES.labels(model=alias.name, code=err.code).inc()
                logger.warning(
                    "llm %s attempt %d failed (%s: %s); retrying in %.2fs",
                    alias.name,
                    attempt,
                    err.code,
                    err.message,
                    delay,
                )
                usage = None
                yield Retrying(attempt + 1, self.settings.max_attempts, err.code, delay)
                await self._sleep(delay)
        final = usage or self._estimate(request, "".join(texts))
        yield replace(final, retries=attempt) if attempt else final

    def _call_deadline(self) -> float:
        """When this call must be over: its own budget, or the turn's deadline if sooner."""
        deadline = asyncio.get_running_loop().time() + self.settings.call_timeout_s
        turn_deadline = current_deadline()
        return deadline if turn_deadline is None else min(deadline, turn_deadline)

    async def _paced(
        self, items: AsyncIterator[T], deadline: float, stall_s: float
    ) -> AsyncIterator[T]:
        """``items``, but no wait for the next one may pass ``stall_s`` or the deadline."""
        loop = asyncio.get_running_loop()
        watch = StallWatch(stall_s, deadline)
        try:
            while True:
                if deadline - loop.time() <= 0:
                    raise self._out_of_time(deadline)
                watch.waiting()
                try:
                    item = await anext(items)
                except StopAsyncIteration:
                    return
                except asyncio.CancelledError as exc:
                    watch.settle(exc)
                finally:
                    watch.received()
                yield item
        except Expired:
            if watch.stalled:
                raise Timeout(f"no data from the upstream for {stall_s:g} s") from None
            raise self._out_of_time(deadline) from None
        finally:
            watch.close()

    def _out_of_time(self, deadline: float) -> CallTimedOut:
        turn_deadline = current_deadline()
        if turn_deadline is not None and turn_deadline <= deadline:
            return DeadlineExceeded("the turn reached its deadline before the call finished")
        limit = self.settings.call_timeout_s
        return CallTimedOut(f"the call took longer than {limit:g} s (PANTHEON_LLM__CALL_TIMEOUT_S)")

    def _retry_delay(self, attempt: int, err: LLMError, deadline: float) -> float:
        """The wait before the next attempt; raises ``err`` (saying why) when waiting cannot
        help: the upstream asks for more than ``max_retry_after_s``, or the wait would end
        past the deadline."""
        limit = self.settings.max_retry_after_s
        if err.retry_after_s is not None and err.retry_after_s > limit:
            raise type(err)(
                f"{err.message}; the upstream asked to wait {err.retry_after_s:g} s, more "
                f"than the {limit:g} s allowed (PANTHEON_LLM__MAX_RETRY_AFTER_S)"
            ) from err
        delay = self.backoff_delay(attempt, err.retry_after_s)
        if asyncio.get_running_loop().time() + delay >= deadline:
            raise type(err)(f"{err.message}; no time left for a retry before the deadline") from err
        return delay

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
                elif isinstance(item, Usage):
                    usage = item
        return Completion(text="".join(texts), usage=usage, tool_calls=tuple(calls))

    def backoff_delay(self, attempt: int, retry_after_s: float | None = None) -> float:
        """Full jitter over ``base * 2**attempt`` (capped), but at least ``retry_after_s``.

        ``attempt`` counts from 0 for the first retry. ``stream`` fails the call instead of
        waiting when ``Retry-After`` exceeds ``max_retry_after_s``.
        """
        s = self.settings
        ceiling = min(s.backoff_max_s, s.backoff_base_s * 2**attempt)
        delay = self._rng.uniform(0.0, ceiling)
        if retry_after_s is not None and retry_after_s > 0:
            delay = max(delay, min(retry_after_s, s.max_retry_after_s))
        return delay

    @staticmethod
    def _estimate(request: LLMRequest, text: str) -> Usage:
        return Usage(
            input_tokens=estimate_messages(request.messages),
            output_tokens=estimate_tokens(text),
            estimated=True,
        )
