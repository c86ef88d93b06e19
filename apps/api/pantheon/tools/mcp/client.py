"""Opening an SDK ``Client`` for a configured server, over Streamable HTTP or stdio.

Only the supervisor task of ``McpConnection`` enters and exits what this returns.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable

import anyio.lowlevel
import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.session import IncomingMessage
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import Implementation, ToolListChangedNotification

from pantheon.tools.mcp.config import McpServerConfig

# The SDK's read timeout for a streamed HTTP response; a call's own deadline is shorter.
HTTP_STREAM_READ_TIMEOUT_S = 300.0
CLIENT_INFO = Implementation(name="pantheon", version="0.1.0")


@contextlib.asynccontextmanager
async def open_client(
    config: McpServerConfig, on_tools_changed: Callable[[], None]
) -> AsyncIterator[Client]:
    """A connected, initialised client; ``on_tools_changed`` runs on
    ``notifications/tools/list_changed``."""

    async def on_message(message: IncomingMessage) -> None:
        if isinstance(message, ToolListChangedNotification):
            on_tools_changed()
        await anyio.lowlevel.checkpoint()

    async with contextlib.AsyncExitStack() as stack:
        if config.url is not None:
            timeout = httpx2.Timeout(
                config.timeout_s,
                connect=config.connect_timeout_s,
                read=max(HTTP_STREAM_READ_TIMEOUT_S, config.timeout_s),
            )
            http = await stack.enter_async_context(
                httpx2.AsyncClient(headers=dict(config.headers), timeout=timeout)
            )
            transport = streamable_http_client(config.url, http_client=http)
        else:
            program, *args = config.command
            params = StdioServerParameters(
                command=program, args=args, env=dict(config.env) or None, cwd=config.cwd
            )
            transport = stdio_client(params)
        client = Client(
            transport,
            read_timeout_seconds=config.timeout_s,
            message_handler=on_message,
            client_info=CLIENT_INFO,
        )
        yield await stack.enter_async_context(client)
