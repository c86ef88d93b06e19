"""An MCP server whose tools are read from a JSON file on every ``tools/list``:
``python pin_server.py TOOLS.json`` (stdio). The tests edit the file to change a tool's
description or schema, or rename it, as a server that turns on its users would.

Each tool: ``{"name", "description", "inputSchema"}``; a call answers ``"<name> ran"``.
Run as a script by path, so it imports nothing from the test package.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp_types import (
    CallToolRequestParams,
    CallToolResult,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
    Tool,
)

TOOLS = Path(sys.argv[1])


async def list_tools(
    _ctx: ServerRequestContext[Any, Any], _params: PaginatedRequestParams | None
) -> ListToolsResult:
    listed = json.loads(await anyio.Path(TOOLS).read_text())
    return ListToolsResult(tools=[Tool.model_validate(tool) for tool in listed])


async def call_tool(
    _ctx: ServerRequestContext[Any, Any], params: CallToolRequestParams
) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=f"{params.name} ran")])


async def main() -> None:
    server: Server[Any] = Server("pin-test", on_list_tools=list_tools, on_call_tool=call_tool)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
