"""Fixtures of the observability tests: an in-process OTLP/HTTP trace receiver."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.observability.otlp import OtlpReceiver


@pytest.fixture
async def receiver() -> AsyncIterator[OtlpReceiver]:
    collector = OtlpReceiver()
    await collector.start()
    try:
        yield collector
    finally:
        await collector.stop()
