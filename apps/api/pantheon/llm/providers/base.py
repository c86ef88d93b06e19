"""The provider contract: turn one request into a stream of deltas and usage.

A provider raises only ``LLMError`` subclasses. It does not retry; the gateway does.
It may omit the trailing ``Usage``; the gateway then estimates one.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol

from pantheon.llm.types import LLMRequest, ModelAlias, StreamItem


class Provider(Protocol):
    def stream(self, alias: ModelAlias, request: LLMRequest) -> AsyncIterator[StreamItem]: ...
