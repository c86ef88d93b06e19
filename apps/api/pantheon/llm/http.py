"""The shared upstream HTTP clients: one of each per process, built in the app lifespan.

LLM calls go over one ``aiohttp.ClientSession`` (``make_upstream_session``): one HTTP stack
between a turn and its model, its body read by ``llm/sse.py`` (ADR 0027). The httpx client
(``make_http_client``) serves the embedders and remote A2A agents, whose SDKs speak httpx;
it runs on ``httpx_aiohttp.AiohttpTransport`` because stock httpx's pool degrades with many
concurrent long-lived streams (encode/httpx#3215). Each pool holds at most
``settings.max_connections`` connections. The caller closes both on shutdown.
"""

from __future__ import annotations

import aiohttp
import httpx
from httpx_aiohttp import AiohttpTransport

from pantheon.settings import LLMSettings


def upstream_timeout(settings: LLMSettings) -> aiohttp.ClientTimeout:
    """Connecting bounded by ``connect_timeout_s``, each read (the headers, then every
    chunk) by ``read_timeout_s``; a wait for a free pooled connection adds at most
    ``read_timeout_s``. The read bound is the gap between two chunks, not the whole stream."""
    return aiohttp.ClientTimeout(
        total=None,
        connect=settings.read_timeout_s + settings.connect_timeout_s,
        sock_connect=settings.connect_timeout_s,
        sock_read=settings.read_timeout_s,
    )


def whole_answer_timeout(settings: LLMSettings) -> aiohttp.ClientTimeout:
    """``upstream_timeout`` for a request sent unstreamed: the upstream writes nothing until
    the whole answer is ready, so no read is bounded here; the gateway ends the call at its
    deadline (``call_timeout_s`` or the turn's)."""
    return aiohttp.ClientTimeout(
        total=None,
        connect=settings.read_timeout_s + settings.connect_timeout_s,
        sock_connect=settings.connect_timeout_s,
        sock_read=None,
    )


def make_upstream_session(settings: LLMSettings) -> aiohttp.ClientSession:
    """The LLM providers' session: a bounded pool, no cookies, no proxy from the environment
    (as the httpx client before it), the timeouts above."""
    return aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=settings.max_connections, limit_per_host=0),
        timeout=upstream_timeout(settings),
        cookie_jar=aiohttp.DummyCookieJar(),
        auto_decompress=True,
    )


def make_http_client(settings: LLMSettings) -> httpx.AsyncClient:
    """An ``httpx.AsyncClient`` over aiohttp with a bounded pool (embedders, A2A agents)."""
    limits = httpx.Limits(
        max_connections=settings.max_connections,
        max_keepalive_connections=settings.max_connections,
    )
    timeout = httpx.Timeout(
        connect=settings.connect_timeout_s,
        read=settings.read_timeout_s,
        write=settings.connect_timeout_s,
        pool=settings.read_timeout_s,
    )
    return httpx.AsyncClient(transport=AiohttpTransport(limits=limits), timeout=timeout)
