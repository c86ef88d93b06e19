"""Wiring: settings + the shared HTTP clients -> a ready ``LLMGateway``.

The gateway always has its providers: ``openai`` (any OpenAI-compatible endpoint, over
the upstream session; ``openai_responses`` for its aliases with ``api = "responses"``),
``scripted`` (the in-package fake, or the one passed in so tests and demos can script it)
and ``a2a`` (the config file's remote A2A agents, over the httpx client their SDK takes).
"""

from __future__ import annotations

import aiohttp
import httpx

from pantheon.config_file import read_config_file
from pantheon.llm.gateway import LLMGateway
from pantheon.llm.providers.a2a_remote import A2AAgentProvider
from pantheon.llm.providers.a2a_remote_config import load_a2a_agents
from pantheon.llm.providers.base import Provider
from pantheon.llm.providers.openai_compat import OpenAICompatProvider
from pantheon.llm.providers.openai_responses import OpenAIResponsesProvider
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.llm.registry import ModelRegistry
from pantheon.settings import Settings


def build_gateway(
    settings: Settings,
    upstream: aiohttp.ClientSession,
    client: httpx.AsyncClient,
    *,
    scripted: ScriptedProvider | None = None,
) -> LLMGateway:
    """The gateway for ``settings``; raises ``ValueError`` on a bad models file."""
    providers: dict[str, Provider] = {
        "openai": OpenAICompatProvider(upstream, settings.llm),
        "openai_responses": OpenAIResponsesProvider(upstream, settings.llm),
        "scripted": scripted if scripted is not None else ScriptedProvider(),
        "a2a": A2AAgentProvider(
            client, load_a2a_agents(read_config_file(settings.resolved_config_file))
        ),
    }
    return LLMGateway(ModelRegistry.from_settings(settings), providers, settings.llm)
