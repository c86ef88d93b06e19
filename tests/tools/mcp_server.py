"""A real MCP server for the tests, built with the SDK: ``python mcp_server.py stdio`` or
``python mcp_server.py http PORT`` (Streamable HTTP on 127.0.0.1).

Run as a script by path, so it imports nothing from the test package.
"""

from __future__ import annotations

import base64
import os
import sys

import anyio
import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.types import Image

server = MCPServer("pantheon-test")


@server.tool()
async def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
async def fail(reason: str) -> str:
    """Always fails."""
    raise ToolError(reason)


@server.tool()
async def hang(seconds: float = 3600) -> str:
    """Sleeps, then answers."""
    await anyio.sleep(seconds)
    return "woke up"


@server.tool()
async def big(size: int) -> str:
    """Returns size characters."""
    return "y" * size


@server.tool()
async def picture() -> Image:
    """Returns a tiny image."""
    return Image(data=base64.b64decode("iVBORw0KGgo="), format="png")


@server.tool()
async def pid() -> int:
    """This server's process id."""
    return os.getpid()


@server.tool()
async def env(name: str) -> str:
    """The value of an environment variable of this process."""
    return os.environ.get(name, "<unset>")


@server.tool()
async def header(name: str, ctx: Context) -> str:
    """The value of a request header (HTTP transport)."""
    return (ctx.headers or {}).get(name.lower(), "<none>")


@server.tool()
async def traceparent(ctx: Context) -> str:
    """The ``traceparent`` of the call's ``_meta`` (trace context propagation)."""
    return str((ctx.request_context.meta or {}).get("traceparent", "<none>"))


@server.tool(name="dotted.name")
async def dotted() -> str:
    """A tool whose name needs sanitising for a model."""
    return "dotted"


@server.tool()
async def grow(name: str) -> str:
    """Adds a tool called name to this server (tests a changed tool list)."""

    async def added() -> str:
        return f"{name} was added"

    server.add_tool(added, name=name, description=f"Added at runtime: {name}")
    return "ok"


if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        server.run()
    else:
        app = server.streamable_http_app()
        uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
