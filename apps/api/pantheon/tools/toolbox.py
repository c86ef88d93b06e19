"""``ToolBox``: the engine's ``ToolRunner`` over the in-process registry and MCP servers.

An agent's entries (``calculator``, ``server.tool``, ``server.*``) become model-visible
definitions; a call is dispatched by model-visible name. ``open_toolbox`` owns the MCP
connections for the life of the app (``Services.tools``): servers connect lazily on first
use and are shut down, stdio children included, when it exits.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Collection, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import anyio
from sqlalchemy.exc import SQLAlchemyError

from pantheon.config_file import read_config_file
from pantheon.db.engine import Database
from pantheon.engine.tooling import ToolResult, ToolScope
from pantheon.llm.types import ToolDefinition
from pantheon.settings import Settings, ToolSettings
from pantheon.tools.entries import ToolEntry, parse_entry, validate_entries
from pantheon.tools.mcp.config import load_mcp_servers
from pantheon.tools.mcp.connection import McpConnection, ServerDown
from pantheon.tools.mcp.convert import McpTool
from pantheon.tools.mcp.oauth.per_user import UserConnections, not_connected
from pantheon.tools.mcp.pin_store import PinStore
from pantheon.tools.mcp.pins import Quarantine
from pantheon.tools.names import mcp_model_name
from pantheon.tools.registry import ToolRegistry
from pantheon.tools.results import failure

log = logging.getLogger(__name__)

# How long shutdown waits for MCP connections to close (stdio: the SDK's bounded
# close-stdin, SIGTERM, SIGKILL sequence) before cancelling them outright.
SHUTDOWN_GRACE_S = 10.0


@dataclass(frozen=True, slots=True)
class ToolInfo:
    """One row of ``GET /v1/tools``: ``name`` as agents reference it."""

    name: str
    description: str
    parameters: Mapping[str, Any]
    source: str
    available: bool
    definition_changed: bool = False


@dataclass(frozen=True, slots=True)
class Listing:
    """A reachable server's tools and, of those, the quarantined ones (ADR 0045)."""

    tools: list[McpTool]
    quarantined: Mapping[str, Quarantine]

    def offered(self) -> list[McpTool]:
        return [tool for tool in self.tools if tool.name not in self.quarantined]


class ToolBox:
    """Built-in tools plus MCP servers, behind the engine's ``ToolRunner`` protocol."""

    def __init__(
        self,
        registry: ToolRegistry,
        connections: Mapping[str, McpConnection],
        settings: ToolSettings,
        pins: PinStore | None = None,
        user_connections: UserConnections | None = None,
    ) -> None:
        self.registry = registry
        self._connections = dict(connections)
        self._settings = settings
        self._pins = pins  # None: nothing is pinned (toolboxes without a database)
        # Model-visible names of quarantined tools, with why, as the last listings found.
        self._withheld: dict[str, str] = {}
        self._pins_unreadable: dict[str, str] = {}  # servers held back: pins unreadable
        # auth = "oauth" servers: one connection per user, with that user's token.
        self.per_user = user_connections or UserConnections({}, settings, _no_spawn)

    def builtin_names(self) -> list[str]:
        return self.registry.names()

    def server_names(self) -> list[str]:
        return sorted({*self._connections, *self.per_user.configs})

    def validate(self, entries: Collection[str]) -> list[ToolEntry]:
        """An agent's entries; ``ValueError`` naming the bad one and what is available."""
        return validate_entries(entries, self.builtin_names(), self.server_names())

    async def definitions(
        self, allowed: Sequence[str], scope: ToolScope | None = None
    ) -> list[ToolDefinition]:
        """Definitions for an agent's entries; unknown, unreachable or quarantined ones are
        left out. An oauth server's tools are the calling user's own listing
        (``scope.owner_id``); a tool named before that user connected stays visible, and
        calling it says how to connect."""
        entries = self._known_entries(allowed)
        listings = await self._listings({e.server for e in entries if e.server is not None})
        owner = scope.owner_id if scope is not None else None
        for server in {e.server for e in entries if e.server in self.per_user.configs}:
            own = await self.per_user.tools(server, owner)  # oauth servers are not pinned
            tools = own if own is not None else _unconnected(server, entries)
            listings[server] = Listing(tools, {})
        found: dict[str, ToolDefinition] = {}
        for entry in entries:
            if entry.server is None:
                spec = self.registry.get(entry.tool)
                if spec is not None:
                    found.setdefault(spec.name, spec.definition)
                continue
            listing = listings.get(entry.server)
            for tool in listing.offered() if listing else []:
                if entry.everything or tool.name == entry.tool:
                    found.setdefault(tool.model_name, tool.definition)
        return list(found.values())

    async def call(self, name: str, arguments: Mapping[str, Any], scope: ToolScope) -> ToolResult:
        """Run one call by model-visible name; never raises."""
        limit = self._settings.max_result_chars
        if self.registry.get(name) is not None:
            with anyio.move_on_after(self._settings.timeout_s):
                return await self.registry.call(name, arguments, scope)
            return failure(f"{name}: no answer within {self._settings.timeout_s:g}s", limit)
        server = self.per_user.server_of(name)
        if server is not None:
            return await self.per_user.call(server, name, arguments, scope.owner_id)
        route = await self._route(name)
        if isinstance(route, str):
            return failure(route, limit)
        connection, tool = route
        return await connection.call(tool.name, arguments)

    async def quarantined(self) -> dict[str, dict[str, Quarantine]]:
        """Each reachable server's quarantined tools (pins checked against a listing)."""
        listings = await self._listings(set(self._connections))
        return {server: dict(listing.quarantined) for server, listing in listings.items()}

    def needs_approval(self, allowed: Sequence[str], name: str) -> bool:
        """Whether the entry that grants model-visible ``name`` ends in ``!``."""
        for entry in self._known_entries(allowed):
            if not entry.needs_approval:
                continue
            if entry.server is None and entry.tool == name:
                return True
            if entry.server is not None and self._grants(entry, name):
                return True
        return False

    def withheld(self, name: str) -> str | None:
        """Why ``name`` was left out of the definitions (quarantined), if it was."""
        return self._withheld.get(name)

    async def catalog(self) -> list[ToolInfo]:
        """Everything that exists: built-ins, then each server's tools (connecting lazily);
        a server that is down shows its last known tools, or one ``server.*`` row; a
        quarantined tool is unavailable with ``definition_changed``."""
        items = [
            ToolInfo(spec.name, spec.description, spec.parameters, "builtin", True)
            for spec in self.registry.specs()
        ]
        listings = await self._listings(set(self._connections))
        for server in sorted(self.per_user.configs):
            description = f"MCP server {server}: each user connects their own account"
            items.append(ToolInfo(f"{server}.*", description, {}, f"mcp:{server}", True))
        for server in sorted(self._connections):
            connection = self._connections[server]
            listing = listings.get(server)
            tools = listing.tools if listing else connection.known_tools
            held = listing.quarantined if listing else {}
            items.extend(
                _info(server, tool, listing is not None, tool.name in held) for tool in tools
            )
            if not tools:
                trouble = self._pins_unreadable.get(server)
                reason = trouble or connection.last_error or "no tools listed"
                description = f"MCP server {server}: {reason}"
                row = ToolInfo(f"{server}.*", description, {}, f"mcp:{server}", listing is not None)
                items.append(row)
        return items

    def _known_entries(self, allowed: Sequence[str]) -> list[ToolEntry]:
        entries = []
        for raw in allowed:
            try:
                entries.append(parse_entry(raw))
            except ValueError as exc:
                log.warning("ignoring tool entry: %s", exc)
        return entries

    def _grants(self, entry: ToolEntry, name: str) -> bool:
        assert entry.server is not None
        if entry.server in self.per_user.configs:
            prefix = mcp_model_name(entry.server, "")
            whole = mcp_model_name(entry.server, entry.tool)
            return name.startswith(prefix) if entry.everything else name == whole
        connection = self._connections.get(entry.server)
        if connection is None:
            return False
        if entry.everything:
            return any(t.model_name == name for t in connection.known_tools)
        return mcp_model_name(entry.server, entry.tool) == name

    async def _listings(self, servers: Collection[str]) -> dict[str, Listing]:
        """Each reachable server's tools, listed concurrently and checked against its pins;
        down servers are absent, and so are servers whose pins cannot be read."""
        listings: dict[str, Listing] = {}

        async def list_one(connection: McpConnection) -> None:
            with contextlib.suppress(ServerDown):
                tools = await connection.tools()
                try:
                    held = await self._pins.check(connection.name, tools) if self._pins else {}
                except SQLAlchemyError as exc:  # fail closed: nothing unpinned is offered
                    log.warning("mcp %s: pins unreadable: %s", connection.name, exc)
                    self._pins_unreadable[connection.name] = "its tool pins cannot be read"
                    return
                self._pins_unreadable.pop(connection.name, None)
                listings[connection.name] = Listing(tools, held)
                self._note_withheld(connection.name, tools, held)

        async with anyio.create_task_group() as tg:
            for server in servers:
                if server in self._connections:
                    tg.start_soon(list_one, self._connections[server])
        return listings

    def _note_withheld(
        self, server: str, tools: Sequence[McpTool], held: Mapping[str, Quarantine]
    ) -> None:
        for tool in tools:
            if tool.name in held:
                self._withheld[tool.model_name] = _refusal(server, tool, held[tool.name])
            else:
                self._withheld.pop(tool.model_name, None)

    async def _route(self, name: str) -> tuple[McpConnection, McpTool] | str:
        """The server and tool behind a model-visible name, or why there is none (down,
        unknown, or quarantined: never a changed definition run unseen)."""
        candidates = [
            c for c in self._connections.values() if name.startswith(mcp_model_name(c.name, ""))
        ]
        listings = await self._listings([c.name for c in candidates])
        for connection in candidates:
            listing = listings.get(connection.name)
            for tool in listing.tools if listing else []:
                if tool.model_name != name:
                    continue
                held = listing.quarantined.get(tool.name) if listing else None
                if held is not None:
                    return _refusal(connection.name, tool, held)
                return connection, tool
        down = [c for c in candidates if c.name not in listings]
        if down:
            server = down[0]
            reason = self._pins_unreadable.get(server.name) or server.last_error or "not connected"
            return f"MCP server {server.name} is unavailable: {reason}"
        return f"unknown tool {name!r}"


def _refusal(server: str, tool: McpTool, held: Quarantine) -> str:
    return (
        f"MCP tool {server}.{tool.name} is quarantined: {held.reason}; "
        f"it stays unavailable until an admin accepts it (pin {held.pin_id})"
    )


def _unconnected(server: str, entries: Sequence[ToolEntry]) -> list[McpTool]:
    """The tools an agent names on an oauth server the user has not connected: callable, so
    the call can say how to connect (``server.*`` names none)."""
    named = {e.tool for e in entries if e.server == server and not e.everything}
    open_schema: dict[str, Any] = {"type": "object", "properties": {}}
    return [
        McpTool(server, tool, mcp_model_name(server, tool), not_connected(server), open_schema)
        for tool in sorted(named)
    ]


def _no_spawn(supervisor: Callable[[], Coroutine[Any, Any, None]]) -> None:
    raise RuntimeError("no oauth servers are configured")


def _info(server: str, tool: McpTool, reachable: bool, held: bool) -> ToolInfo:
    name, source = f"{server}.{tool.name}", f"mcp:{server}"
    available = reachable and not held
    return ToolInfo(name, tool.description, tool.parameters, source, available, held)


@contextlib.asynccontextmanager
async def open_toolbox(
    settings: Settings, registry: ToolRegistry | None = None, db: Database | None = None
) -> AsyncIterator[ToolBox]:
    """A ``ToolBox`` for the app's lifetime: built-ins (unless ``registry`` is given) and
    the config file's MCP servers (``ValueError`` naming file and server when invalid),
    their tools pinned in ``db`` (the app always gives one; ADR 0045).

    Supervisors are plain tasks rather than children of a task group here, so entering and
    leaving this context may happen in different tasks (pytest fixtures, some lifespans);
    each supervisor still opens and closes its own connection itself."""
    configs = load_mcp_servers(read_config_file(settings.resolved_config_file), settings.tools)
    limit = settings.tools.max_result_chars
    registry = registry or ToolRegistry.with_builtins(max_result_chars=limit)
    supervisors: set[asyncio.Task[None]] = set()

    def spawn(supervisor: Callable[[], Coroutine[Any, Any, None]]) -> None:
        supervisors.add(asyncio.get_running_loop().create_task(supervisor()))

    static = [c for c in configs if c.oauth is None]
    connections = {c.name: McpConnection(c, settings.tools, spawn) for c in static}
    per_user = UserConnections({c.name: c for c in configs}, settings.tools, spawn)
    try:
        pins = PinStore(db) if db is not None else None
        yield ToolBox(registry, connections, settings.tools, pins, per_user)
    finally:
        per_user.close()
        for connection in connections.values():
            connection.close()
        await _stop(supervisors)


async def _stop(supervisors: set[asyncio.Task[None]]) -> None:
    if not supervisors:
        return
    _done, pending = await asyncio.wait(supervisors, timeout=SHUTDOWN_GRACE_S)
    for task in pending:
        task.cancel()
    await asyncio.gather(*supervisors, return_exceptions=True)
