"""The provider contract: turn one request into a stream of deltas and usage.

A provider raises only ``LLMError`` subclasses. It does not retry; the gateway does.
It may omit the trailing ``Usage``; the gateway then estimates one.

A provider that sends some requests unstreamed says which (``ChoosesStreaming``): the
answer to those arrives whole after the upstream has written all of it, so the gateway
bounds the wait by the call's deadline instead of the stall timeout between chunks.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol, runtime_checkable

from pantheon.llm.types import LLMRequest, ModelAlias, StreamItem


class Provider(Protocol):
    def stream(self, alias: ModelAlias, request: LLMRequest) -> AsyncIterator[StreamItem]: ...


@runtime_checkable
class ChoosesStreaming(Protocol):
    def streams(self, alias: ModelAlias, request: LLMRequest) -> bool: ...


def answer_streams(provider: Provider, alias: ModelAlias, request: LLMRequest) -> bool:
    """Whether ``provider`` answers ``request`` in chunks (the stall timeout applies) rather
    than whole (only the call's deadline does). Providers that do not say always stream."""
    return not isinstance(provider, ChoosesStreaming) or provider.streams(alias, request)
