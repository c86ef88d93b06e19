"""Small helpers shared by the LLM tests: draining streams, a recording sleep, jitter."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Sequence
from typing import TypeVar

from pantheon.llm.types import GatewayItem, TextDelta

# A provider's items, or the gateway's (which adds retry notices).
Item = TypeVar("Item", bound=GatewayItem)


async def collect(stream: AsyncIterator[Item]) -> list[Item]:
    return [item async for item in stream]


async def drain(stream: AsyncIterator[Item], into: list[Item]) -> None:
    """Like ``collect``, but what arrived before an error stays visible in ``into``."""
    async for item in stream:
        into.append(item)


def texts(items: Sequence[GatewayItem]) -> list[str]:
    return [i.text for i in items if isinstance(i, TextDelta)]


class RecordingSleep:
    """An injected ``sleep`` that returns at once and remembers each delay."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)


class MaxRandom(random.Random):
    """Jitter that always picks the upper bound, so backoff delays are predictable."""

    def uniform(self, a: float, b: float) -> float:
        return b
