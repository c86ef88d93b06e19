from __future__ import annotations

from pathlib import Path

import aiohttp
from httpx_aiohttp import AiohttpTransport

from pantheon.llm.factory import build_gateway
from pantheon.llm.http import make_http_client, make_upstream_session
from pantheon.llm.providers.openai_compat import OpenAICompatProvider
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.llm.types import ChatMessage, LLMRequest
from pantheon.settings import LLMSettings, Settings


async def test_http_client_uses_aiohttp_with_the_configured_pool() -> None:
    settings = LLMSettings(max_connections=7, connect_timeout_s=2.0, read_timeout_s=9.0)
    client = make_http_client(settings)
    try:
        transport = client._transport  # no public accessor for the transport
        assert isinstance(transport, AiohttpTransport)
        assert transport.limits.max_connections == 7
        assert (client.timeout.connect, client.timeout.read) == (2.0, 9.0)
    finally:
        await client.aclose()


async def test_upstream_session_pools_and_bounds_every_wait() -> None:
    settings = LLMSettings(max_connections=7, connect_timeout_s=2.0, read_timeout_s=9.0)
    session = make_upstream_session(settings)
    try:
        connector = session.connector
        assert isinstance(connector, aiohttp.TCPConnector)
        assert connector.limit == 7
        timeout = session.timeout
        assert (timeout.sock_connect, timeout.sock_read) == (2.0, 9.0)
        assert timeout.connect == 11.0  # a pool wait, then the connect, each bounded
        assert timeout.total is None  # a long answer is fine while its chunks keep coming
    finally:
        await session.close()


async def test_build_gateway_wires_both_providers(tmp_path: Path) -> None:
    models = tmp_path / "models.toml"
    models.write_text('[models.local]\nbase_url = "http://127.0.0.1:1/v1"\n', encoding="utf-8")
    settings = Settings(models_file=models)
    scripted = ScriptedProvider()
    scripted.script("wired")
    client = make_http_client(settings.llm)
    upstream = make_upstream_session(settings.llm)
    try:
        gateway = build_gateway(settings, upstream, client, scripted=scripted)
        assert gateway.registry.names() == ["local", "scripted"]
        assert isinstance(gateway.providers["openai"], OpenAICompatProvider)
        assert gateway.providers["scripted"] is scripted
        request = LLMRequest(model="scripted", messages=(ChatMessage("user", "x"),))
        assert (await gateway.complete(request)).text == "wired"
        default = build_gateway(Settings(), upstream, client)
        assert isinstance(default.providers["scripted"], ScriptedProvider)
    finally:
        await client.aclose()
        await upstream.close()
