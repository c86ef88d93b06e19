"""Tool listings and calls on ``auth = "oauth"`` servers as the calling user: one
``McpConnection`` per (server, user), carrying that user's bearer token; a renewed token
replaces the connection. A user who has not connected gets an error result naming the
connect route (the in-turn ``auth_required`` pause is the next slice, docs/adr/0046)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pantheon.engine.tooling import ToolResult
from pantheon.settings import ToolSettings
from pantheon.tools.mcp.config import McpServerConfig
from pantheon.tools.mcp.connection import McpConnection, ServerDown, Spawn
from pantheon.tools.mcp.convert import McpTool
from pantheon.tools.mcp.oauth.connections import OAuthConnections
from pantheon.tools.names import mcp_model_name
from pantheon.tools.results import failure


def not_connected(server: str) -> str:
    return (
        f"MCP server {server} needs your own account, and you have not connected it (or "
        "its connection expired and could not be renewed): "
        f"connect it with POST /v1/connections/{server} (or in account settings), then retry"
    )


class UserConnections:
    """The per-user connections to the oauth servers of one toolbox."""

    def __init__(
        self, configs: Mapping[str, McpServerConfig], settings: ToolSettings, spawn: Spawn
    ) -> None:
        self.configs = {n: c for n, c in configs.items() if c.oauth is not None}
        self._settings, self._spawn = settings, spawn
        self._open: dict[tuple[str, str], tuple[str, McpConnection]] = {}
        self.store: OAuthConnections | None = None

    async def _connection(self, server: str, owner_id: str) -> McpConnection | None:
        if self.store is None:
            return None
        try:
            user = uuid.UUID(owner_id)
        except ValueError:
            return None
        token = await self.store.access_token(user, server)
        if token is None:
            return None
        key = (server, owner_id)
        held = self._open.get(key)
        if held is not None and held[0] == token:
            return held[1]
        if held is not None:
            held[1].close()
        headers = {**self.configs[server].headers, "Authorization": f"Bearer {token}"}
        config = replace(self.configs[server], headers=headers)
        connection = McpConnection(config, self._settings, self._spawn)
        self._open[key] = (token, connection)
        return connection

    async def tools(self, server: str, owner_id: str | None) -> list[McpTool] | None:
        """The user's own listing; ``None`` when not connected or unreachable."""
        connection = await self._connection(server, owner_id) if owner_id else None
        if connection is None:
            return None
        try:
            return await connection.tools()
        except ServerDown:
            return None

    async def call(
        self, server: str, name: str, arguments: Mapping[str, Any], owner_id: str
    ) -> ToolResult:
        limit = self._settings.max_result_chars
        connection = await self._connection(server, owner_id)
        if connection is None:
            return failure(not_connected(server), limit)
        try:
            listed = await connection.tools()
        except ServerDown as exc:
            return failure(str(exc), limit)
        for tool in listed:
            if tool.model_name == name:
                return await connection.call(tool.name, arguments)
        return failure(f"unknown tool {name!r} on MCP server {server}", limit)

    def server_of(self, name: str) -> str | None:
        for server in self.configs:
            if name.startswith(mcp_model_name(server, "")):
                return server
        return None

    def close(self) -> None:
        for _token, connection in self._open.values():
            connection.close()
        self._open.clear()
