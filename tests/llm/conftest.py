"""Fixtures for the LLM tests: settings, a recording sleep, the mock server, a session,
and the OpenAI-compatible provider and a gateway wired to that mock server."""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp
import pytest

from pantheon.llm.gateway import LLMGateway
from pantheon.llm.http import make_upstream_session
from pantheon.llm.providers.openai_compat import OpenAICompatProvider
from pantheon.llm.registry import ModelRegistry
from pantheon.settings import LLMSettings
from tests.llm.mock_openai import MockOpenAI
from tests.llm.streams import MaxRandom, RecordingSleep


@pytest.fixture
def llm_settings() -> LLMSettings:
    return LLMSettings(
        connect_timeout_s=1.0,
        read_timeout_s=1.0,
        max_attempts=3,
        backoff_base_s=0.5,
        backoff_max_s=4.0,
    )


@pytest.fixture
def sleep() -> RecordingSleep:
    return RecordingSleep()


@pytest.fixture
async def mock_openai() -> AsyncIterator[MockOpenAI]:
    server = MockOpenAI()
    await server.start()
    yield server
    await server.stop()


@pytest.fixture
async def upstream() -> AsyncIterator[aiohttp.ClientSession]:
    """The providers' session, as the app builds it (each provider passes its own timeouts)."""
    session = make_upstream_session(LLMSettings())
    yield session
    await session.close()


@pytest.fixture
def openai_provider(
    upstream: aiohttp.ClientSession, llm_settings: LLMSettings
) -> OpenAICompatProvider:
    return OpenAICompatProvider(upstream, llm_settings)


@pytest.fixture
def openai_gateway(
    openai_provider: OpenAICompatProvider,
    mock_openai: MockOpenAI,
    llm_settings: LLMSettings,
    sleep: RecordingSleep,
) -> LLMGateway:
    """A gateway whose only alias, ``mock``, points at the mock server."""
    registry = ModelRegistry([mock_openai.alias()])
    providers = {"openai": openai_provider}
    return LLMGateway(registry, providers, llm_settings, sleep=sleep, rng=MaxRandom())
