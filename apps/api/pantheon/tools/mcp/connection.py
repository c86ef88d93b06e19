"""One MCP server per process: a supervisor task owns the SDK client, callers never do.

The SDK's transport and session are async context managers holding anyio cancel scopes,
which must be entered and exited by one task. So each server gets one supervisor task
(spawned lazily, on first use, into the toolbox's task group) that opens the client, lists
the tools, then keeps a task group open in which every request of every caller runs as a
child task; callers wait for an ``Outcome`` with their own deadline. When the connection
breaks, the supervisor's scope unwinds, in-flight requests end with "connection lost", and
the next use after a backoff (doubling up to ``mcp_backoff_max_s``) reconnects.

Nothing here raises into a caller except ``ServerDown`` from ``tools()``; ``call`` always
returns a ``ToolResult``.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from typing import Any, Literal, cast

import anyio
from anyio.abc import TaskGroup
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT, RequestParamsMeta

from pantheon.engine.tooling import ToolResult
from pantheon.observability.trace_context import outgoing_headers
from pantheon.settings import ToolSettings
from pantheon.tools.mcp.client import open_client
from pantheon.tools.mcp.config import McpServerConfig
from pantheon.tools.mcp.convert import McpTool, result_text, to_mcp_tool, unique_by_model_name
from pantheon.tools.mcp.outcome import Outcome, describe_error
from pantheon.tools.results import failure, success

log = logging.getLogger(__name__)

State = Literal["idle", "connecting", "up", "down", "closed"]
Spawn = Callable[[Callable[[], Coroutine[Any, Any, None]]], None]
MAX_LIST_PAGES = 20


class ServerDown(Exception):
    """The server cannot be used right now; the message says why."""


class McpConnection:
    """The long-lived connection to one configured server."""

    def __init__(self, config: McpServerConfig, settings: ToolSettings, spawn: Spawn) -> None:
        self.config = config
        self._settings = settings
        self._spawn = spawn
        self._state: State = "idle"
        self._wake = anyio.Event()
        self._attempt_done = anyio.Event()
        self._requests: TaskGroup | None = None
        self._client: Client | None = None
        self._end_reason: str | None = None
        self._connection_scope: anyio.CancelScope | None = None
        self._tools: list[McpTool] | None = None
        self._listed_at = -math.inf
        self._refresh_lock = anyio.Lock()
        self._backoff = settings.mcp_backoff_base_s
        self._retry_at = 0.0
        self.last_error: str | None = None

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def available(self) -> bool:
        return self._state == "up"

    @property
    def known_tools(self) -> list[McpTool]:
        """The last listing received (possibly from an earlier connection), without I/O."""
        return list(self._tools or [])

    async def tools(self) -> list[McpTool]:
        """The server's tools, listed again when the cache is older than the TTL;
        ``ServerDown`` when it cannot be reached."""
        await self._ensure_up()
        if anyio.current_time() - self._listed_at > self._settings.mcp_tools_ttl_s:
            async with self._refresh_lock:
                if anyio.current_time() - self._listed_at > self._settings.mcp_tools_ttl_s:
                    outcome: Outcome[None] = Outcome()
                    self._run(outcome, self._list)
                    await outcome.wait(self._settings.mcp_list_timeout_s)
                    if outcome.error is not None:
                        log.warning("mcp %s: tools/list failed: %s", self.name, outcome.error)
        return self.known_tools

    async def call(self, tool: str, arguments: Mapping[str, Any]) -> ToolResult:
        """Run one tool; a down server, a timeout or an error are ``ok=False`` results."""
        limit = self._settings.max_result_chars
        try:
            await self._ensure_up()
        except ServerDown as exc:
            return failure(str(exc), limit)
        outcome: Outcome[ToolResult] = Outcome()
        meta = outgoing_headers()  # read here: the request runs in the connection's task
        self._run(outcome, lambda client: self._call(client, tool, dict(arguments), meta))
        # A little slack: the SDK's own read timeout normally answers first, with its reason.
        await outcome.wait(self.config.timeout_s + 1.0)
        if outcome.value is not None:
            return outcome.value
        return failure(f"MCP server {self.name}: {tool}: {outcome.error}", limit)

    async def _ensure_up(self) -> None:
        if self._state == "closed":
            raise ServerDown(f"MCP server {self.name} is shut down")
        if self._state == "idle":
            self._state = "down"
            self._spawn(self._supervise)
        if self._state == "down" and anyio.current_time() >= self._retry_at:
            self._state = "connecting"
            self._attempt_done = anyio.Event()
            self._wake.set()
        if self._state == "connecting":
            with anyio.move_on_after(self.config.connect_timeout_s + 1.0):
                await self._attempt_done.wait()
        if self._state != "up":
            reason = self.last_error or "not connected"
            raise ServerDown(f"MCP server {self.name} is unavailable: {reason}")

    def _run(self, outcome: Outcome[Any], job: Callable[[Client], Awaitable[Any]]) -> None:
        """Start ``job`` as a child of the connection's request task group."""
        requests, client = self._requests, self._client
        if requests is None or client is None:
            outcome.fail("connection lost")
            return

        async def run() -> None:
            try:
                outcome.succeed(await job(client))
            except MCPError as exc:
                timed_out = exc.code == REQUEST_TIMEOUT
                outcome.fail("no answer in time (timeout_s)" if timed_out else exc.message)
                if exc.code == CONNECTION_CLOSED:
                    self._break(exc.message)
            except Exception as exc:
                # Not an answer from the server: the transport is broken. Reconnect later.
                outcome.fail(f"connection lost ({describe_error(exc)})")
                self._break(describe_error(exc))
            except anyio.get_cancelled_exc_class():
                # Only the connection's own scope cancels requests: it is going down.
                outcome.fail("connection lost")
                self._break("connection lost")
                raise

        try:
            requests.start_soon(run)
        except RuntimeError:
            outcome.fail("connection lost")

    async def _list(self, client: Client) -> None:
        listed: list[McpTool] = []
        cursor: str | None = None
        for _ in range(MAX_LIST_PAGES):
            page = await client.list_tools(cursor=cursor, cache_mode="refresh")
            listed.extend(to_mcp_tool(self.name, tool) for tool in page.tools)
            cursor = page.next_cursor
            if cursor is None:
                break
        self._tools = unique_by_model_name(listed)
        self._listed_at = anyio.current_time()

    async def _call(
        self, client: Client, tool: str, arguments: dict[str, Any], meta: dict[str, str]
    ) -> ToolResult:
        """One ``tools/call``; ``meta`` (its ``_meta``) carries the turn's ``traceparent``."""
        limit = self._settings.max_result_chars
        timeout = self.config.timeout_s
        result = await client.call_tool(
            tool, arguments, read_timeout_seconds=timeout, meta=_request_meta(meta)
        )
        text = result_text(result)
        if result.is_error:
            return failure(text or f"{tool} failed on MCP server {self.name}", limit)
        return success(text, limit)

    async def _supervise(self) -> None:
        """The one task that opens, serves and closes this server's connections."""
        while self._state != "closed":
            await self._wake.wait()
            self._wake = anyio.Event()
            if self._closed():
                return
            try:
                error = await self._connect_and_serve()
            except Exception as exc:  # a bug here must not take the app's task group down
                log.exception("mcp %s: supervisor failed", self.name)
                error = describe_error(exc)
            if self._closed():
                return
            delay = self._backoff
            self._state = "down"
            self.last_error = error
            self._retry_at = anyio.current_time() + delay
            self._backoff = min(delay * 2, self._settings.mcp_backoff_max_s)
            self._attempt_done.set()
            log.warning("mcp %s: down (%s); next try after %.1fs", self.name, error, delay)

    async def _connect_and_serve(self) -> str:
        """Returns why the connection ended."""
        timeout = self.config.connect_timeout_s
        self._end_reason = None
        try:
            with anyio.CancelScope(deadline=anyio.current_time() + timeout) as scope:
                self._connection_scope = scope
                async with (
                    open_client(self.config, self._tools_changed) as client,
                    anyio.create_task_group() as tg,
                ):
                    await self._list(client)
                    scope.deadline = math.inf
                    self._client, self._requests = client, tg
                    self._up()
                    await anyio.sleep_forever()
            if self._state == "connecting":
                return f"no answer within {timeout:g}s (connect_timeout_s)"
            return self._end_reason or "connection closed"
        except Exception as exc:
            log.debug("mcp %s: connection failed", self.name, exc_info=True)
            return describe_error(exc)
        finally:
            self._client, self._requests, self._connection_scope = None, None, None

    def _up(self) -> None:
        self._state = "up"
        self.last_error = None
        self._backoff = self._settings.mcp_backoff_base_s
        self._attempt_done.set()
        log.info("mcp %s: connected, %d tools", self.name, len(self._tools or []))

    def _closed(self) -> bool:
        # A method, not a comparison inline: close() changes the state while we await.
        return self._state == "closed"

    def _tools_changed(self) -> None:
        self._listed_at = -math.inf

    def _break(self, reason: str) -> None:
        """Abandon a broken connection: callers fail fast until the supervisor has closed it
        and set the backoff."""
        if self._state == "up" and self._connection_scope is not None:
            self._state = "down"
            self._retry_at = math.inf
            self._end_reason = self.last_error = reason
            self._connection_scope.cancel()

    def close(self) -> None:
        """Stop for good. Serving ends by cancelling only the request task group, so the
        client itself closes normally (HTTP session ended, stdio child shut down)."""
        self._state = "closed"
        self._wake.set()
        if self._requests is not None:
            self._requests.cancel_scope.cancel()
        elif self._connection_scope is not None:
            self._connection_scope.cancel()


def _request_meta(meta: dict[str, str]) -> RequestParamsMeta | None:
    """A request's ``_meta`` (an open map in MCP) from ``meta``, or none when empty."""
    return cast(RequestParamsMeta, dict(meta)) if meta else None
