"""The MCP server: the official SDK's low-level ``Server`` with three handlers (``tools/list``,
``tools/call``, ``subscriptions/listen``) behind its Streamable HTTP session manager,
mounted at ``/mcp``.

Stateless HTTP: every request stands alone (2026-07-28's per-request envelope, and the
handshake revisions without ``Mcp-Session-Id``), so any replica answers any request and
nothing is kept between them; the turn's own state is Pantheon's. The endpoint
authenticates before the SDK sees the request: ``keys`` mode takes the same API keys as
every route (``Authorization: Bearer``), ``local`` mode the local user, and additionally
accepts only loopback ``Host`` and ``Origin`` headers (DNS rebinding, as the MCP spec
asks). The caller is handed to the handlers in the ASGI scope.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    CallToolRequestParams,
    CallToolResult,
    InputRequiredResult,
    ListToolsResult,
    PaginatedRequestParams,
    SubscriptionsListenRequestParams,
    SubscriptionsListenResult,
    Tool,
    ToolAnnotations,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from pantheon.db.uow import unit_of_work
from pantheon.deps import Services, services_of
from pantheon.errors import AppError
from pantheon.protocols.mcp_server.catalogue import Target, targets, tool_schema
from pantheon.protocols.mcp_server.door import (
    Replay,
    invalid_id_refusal,
    jsonrpc_error,
    rebinding_refusal,
    without_padding,
)
from pantheon.protocols.mcp_server.listen import ToolWatch
from pantheon.protocols.mcp_server.run import ToolCall
from pantheon.settings import Settings
from pantheon.users.auth import Principal, authenticate, bearer_scheme

MCP_PATH = "/mcp"
_PRINCIPAL = "pantheon.mcp.principal"
INSTRUCTIONS = (
    "Each tool is a Pantheon room (room_*: several AI agents answer together, in the "
    "room's mode) or one agent (agent_*). Pass a message; pass the session_id a result "
    "returned to continue that conversation."
)


def jsonrpc_shape(status: int, message: str, _code: str) -> tuple[int, dict[str, Any]]:
    """``ErrorShapes`` shaper: errors answered outside the SDK (a body over the size
    limit ...) in JSON-RPC's shape, with their HTTP status."""
    return status, jsonrpc_error(message, INTERNAL_ERROR if status >= 500 else INVALID_REQUEST)


def _caller(ctx: ServerRequestContext[Any, Any]) -> tuple[Principal, Services]:
    request = ctx.request
    assert isinstance(request, Request), "the MCP endpoint serves HTTP only"
    services = services_of(request.app)
    assert services is not None, "the endpoint answers only once the app has started"
    principal: Principal = request.scope[_PRINCIPAL]
    return principal, services


def _tool(target: Target) -> Tool:
    inputs, outputs = tool_schema(target.kind)
    kind = "room" if target.kind == "room" else "agent"
    return Tool(
        name=target.name,
        title=f"{target.title} ({kind})",
        description=target.description,
        input_schema=inputs,
        output_schema=outputs,
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False),
    )


async def _targets(services: Services, principal: Principal) -> list[Target]:
    async with unit_of_work(services.db, write=False) as db:
        return await targets(db, principal.user_id)


async def list_tools(
    ctx: ServerRequestContext[Any, Any], _params: PaginatedRequestParams | None
) -> ListToolsResult:
    """The caller's rooms and agents, as they are now (one page: a user has few)."""
    principal, services = _caller(ctx)
    return ListToolsResult(tools=[_tool(t) for t in await _targets(services, principal)])


def _can_ask(ctx: ServerRequestContext[Any, Any]) -> bool:
    """The host answers ``input_required`` results with form elicitations (2026-07-28)."""
    capabilities = ctx.session.client_capabilities
    modern = ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
    return modern and capabilities is not None and capabilities.elicitation is not None


async def call_tool(
    ctx: ServerRequestContext[Any, Any], params: CallToolRequestParams
) -> CallToolResult | InputRequiredResult:
    """Run a turn of the room or agent the tool names (or, answering an approval request,
    the paused turn's continuation); unknown names are a protocol error."""
    principal, services = _caller(ctx)
    found = {t.name: t for t in await _targets(services, principal)}
    target = found.get(params.name)
    if target is None:
        raise MCPError(
            INVALID_PARAMS,
            f"Unknown tool: {params.name}; tools/list names your rooms (room_*) and agents "
            "(agent_*)",
        )

    call = ToolCall(services, principal, target, can_ask=_can_ask(ctx))
    arguments = params.arguments or {}
    return await call.run(arguments, _Progress(ctx), params.input_responses, params.request_state)


@dataclass
class _Listen:
    """``subscriptions/listen``: the caller's ``tools/list_changed`` stream (listen.py)."""

    watch: ToolWatch

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], params: SubscriptionsListenRequestParams
    ) -> SubscriptionsListenResult:
        principal, services = _caller(ctx)
        read = functools.partial(_targets, services, principal)
        stopping = functools.partial(_stopping, services)
        return await self.watch.listen(principal.user_id, read, stopping, ctx, params)


def _stopping(services: Services) -> bool:
    """Whether this server has begun to stop (it refuses new turns)."""
    try:
        services.live_turns.ensure_accepting()
    except AppError:
        return True
    return False


@dataclass
class _Progress:
    """Progress notifications of one call, numbered 1, 2, ... (total unknown); the SDK
    sends them only when the client asked (a ``progressToken``)."""

    ctx: ServerRequestContext[Any, Any]
    count: int = 0

    async def __call__(self, message: str) -> None:
        self.count += 1
        await self.ctx.session.report_progress(self.count, None, message)


@dataclass
class McpEndpoint:
    """The ASGI app at ``/mcp``: guard (door.py), authenticate, then hand the request to
    the SDK."""

    manager: StreamableHTTPSessionManager

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        services = services_of(scope["app"])
        if services is None:
            refused = JSONResponse(jsonrpc_error("the server is starting"), status_code=503)
            await refused(scope, receive, send)
            return
        scope = without_padding(scope)
        request = Request(scope, receive)
        refusal = await _refusal(services, request)
        if refusal is None and request.method == "POST":
            body = await request.body()
            refusal = invalid_id_refusal(body)
            receive = Replay(body, receive)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        await self.manager.handle_request(scope, receive, send)


async def _refusal(services: Services, request: Request) -> JSONResponse | None:
    """The answer to a request the SDK must not see, in this order: in ``local`` mode one
    to a host that is not loopback (DNS rebinding), else a caller without a valid key
    (the caller is put in the scope for the handlers), else what is never served."""
    if services.settings.auth_mode == "local":
        refused = rebinding_refusal(request)
        if refused is not None:
            return refused
    try:
        request.scope[_PRINCIPAL] = await _principal(services, request)
    except AppError as exc:
        body = jsonrpc_error(exc.message)
        return JSONResponse(body, status_code=exc.status_code, headers=exc.headers)
    return _unserved(request)


def _unserved(request: Request) -> JSONResponse | None:
    """What the stateless endpoint refuses before the SDK sees it: a GET (the SDK would
    open a standing stream that nothing can ever be sent on, and that never ends) and a
    POST body that is not declared JSON (the SDK's own check answers plain text)."""
    if request.method == "GET":
        body = jsonrpc_error(
            "Method Not Allowed: this stateless server offers no GET stream; POST "
            "requests (2026-07-28 hosts: subscriptions/listen for tools/list_changed)"
        )
        return JSONResponse(body, status_code=405, headers={"Allow": "POST"})
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if request.method == "POST" and content_type != "application/json":
        body = jsonrpc_error("Unsupported Media Type: Content-Type must be application/json")
        return JSONResponse(body, status_code=415)
    return None


async def _principal(services: Services, request: Request) -> Principal:
    if services.settings.auth_mode == "local":
        return services.local_principal
    return await authenticate(services.db, await bearer_scheme(request), request)


@dataclass
class McpServer:
    """What ``main.py`` mounts and runs for the app's lifetime."""

    server: Server[Any]
    manager: StreamableHTTPSessionManager

    def mount(self, app: FastAPI) -> None:
        """Serve ``/mcp`` (any method: the SDK answers what it does not serve); its
        errors take ``jsonrpc_shape`` (protocols/doors.py)."""
        self.server.version = app.version
        # An ASGI app as the endpoint: Starlette hands it the request untouched.
        app.router.routes.append(
            Route(MCP_PATH, McpEndpoint(self.manager), include_in_schema=False)
        )

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The session manager's task group: requests are served inside it."""
        async with self.manager.run():
            yield


def build_mcp_server(settings: Settings) -> McpServer:
    """The SDK server with Pantheon's handlers, and its stateless HTTP manager."""
    watch = ToolWatch(settings.mcp.tools_poll_s, settings.mcp.listen_streams_per_user)
    server: Server[Any] = Server(
        "pantheon",
        title="Pantheon",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_subscriptions_listen=_Listen(watch),
    )
    manager = StreamableHTTPSessionManager(
        app=server,
        stateless=True,
        json_response=False,  # SSE: progress notifications stream while a turn runs
        security_settings=None,  # the door checks Host and Origin itself (door.py)
    )
    return McpServer(server, manager)
