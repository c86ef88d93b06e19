"""The shared upstream HTTP client: one per process, built in the app lifespan.

It runs on ``httpx_aiohttp.AiohttpTransport`` because stock httpx's connection pool
degrades with many concurrent long-lived streams (encode/httpx#3215). The pool holds at
most ``settings.max_connections`` connections; default timeouts come from the settings
(providers also pass them per request). The caller owns the client and must
``await client.aclose()`` on shutdown.
"""

from __future__ import annotations

import httpx
from httpx_aiohttp import AiohttpTransport

from pantheon.settings import LLMSettings


def upstream_timeout(settings: LLMSettings) -> httpx.Timeout:
    """Connect bounded by ``connect_timeout_s``; each read (and pool wait) by ``read_timeout_s``.

    The read timeout bounds the gap between two chunks, not the whole stream.
    """
    return httpx.Timeout(
        connect=settings.connect_timeout_s,
        read=settings.read_timeout_s,
        write=settings.connect_timeout_s,
        pool=settings.read_timeout_s,
    )


def make_http_client(settings: LLMSettings) -> httpx.AsyncClient:
    """An ``httpx.AsyncClient`` over aiohttp with a bounded connection pool."""
    limits = httpx.Limits(
        max_connections=settings.max_connections,
        max_keepalive_connections=settings.max_connections,
    )
    return httpx.AsyncClient(
        transport=AiohttpTransport(limits=limits),
        timeout=upstream_timeout(settings),
    )
