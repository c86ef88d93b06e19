"""``/v1/connections``: the caller's own OAuth connections to ``auth = "oauth"`` MCP
servers (docs/adr/0046). Listing shows state, scopes and expiry, never a token. The
callback is public (the browser arrives from the authorization server): the ``state``
alone names the user, is used once and expires; the result goes to the page as
``/?connection=<server>&connection_result=<code>``."""

from __future__ import annotations

import logging
from datetime import datetime
from enum import StrEnum
from urllib.parse import quote

from fastapi import APIRouter, Request, Response
from fastapi.responses import RedirectResponse
from pydantic import BaseModel

from pantheon.deps import ServicesDep, UserIdDep
from pantheon.errors import NotFound, ServiceUnavailable
from pantheon.tools.mcp.oauth.connections import ConnectFailed, OAuthConnections

router = APIRouter(prefix="/v1/connections", tags=["connections"])
callback_router = APIRouter(prefix="/v1/connections", tags=["connections"])
log = logging.getLogger("pantheon.connections")
FOUND = 302


class ConnectResult(StrEnum):
    """What the page is told after a callback."""

    CONNECTED = "connected"
    REFUSED = "refused"  # the user (or the server) said no
    FAILED = "failed"  # bad or expired state, or the code exchange failed


class ConnectionRead(BaseModel):
    server: str
    connected: bool
    scopes: list[str]
    expires_at: datetime | None


class ConnectionsRead(BaseModel):
    items: list[ConnectionRead]


class ConnectStarted(BaseModel):
    url: str


def _store(services: ServicesDep, server: str | None = None) -> OAuthConnections:
    store = services.tools.per_user.store
    if store is None or (server is not None and server not in store.servers):
        raise NotFound(f"no MCP server named '{server}' with auth = \"oauth\"")
    return store


@router.get("")
async def list_connections(services: ServicesDep, user_id: UserIdDep) -> ConnectionsRead:
    """The caller's connection to each oauth server: connected or not, scopes, expiry."""
    store = services.tools.per_user.store
    if store is None:
        return ConnectionsRead(items=[])
    statuses = await store.statuses(user_id)
    items = [
        ConnectionRead(
            server=s.server, connected=s.connected, scopes=s.scopes, expires_at=s.expires_at
        )
        for s in statuses
    ]
    return ConnectionsRead(items=items)


@router.post("/{server}")
async def start_connection(
    request: Request, services: ServicesDep, user_id: UserIdDep, server: str
) -> ConnectStarted:
    """The authorization URL to open; the state and PKCE verifier stay here, bound to the
    caller."""
    store = _store(services, server)
    callback = str(request.url_for("connection_callback", server=server))
    try:
        url = await store.start(user_id, server, callback)
    except ConnectFailed as exc:
        raise ServiceUnavailable(str(exc)) from None
    return ConnectStarted(url=url)


@router.delete("/{server}", status_code=204)
async def delete_connection(services: ServicesDep, user_id: UserIdDep, server: str) -> Response:
    """Forget the caller's tokens for ``server`` (idempotent)."""
    await _store(services, server).disconnect(user_id, server)
    return Response(status_code=204)


@callback_router.get(
    "/{server}/callback",
    status_code=FOUND,
    response_class=RedirectResponse,
    name="connection_callback",
)
async def connection_callback(
    services: ServicesDep,
    server: str,
    state: str | None = None,
    code: str | None = None,
    error: str | None = None,
) -> RedirectResponse:
    """Where the authorization server sends the browser back: 302 to the page."""
    store = _store(services, server)
    result = ConnectResult.CONNECTED
    if error is not None or not code or not state:
        result = ConnectResult.REFUSED if error is not None else ConnectResult.FAILED
    else:
        try:
            await store.complete(server, state, code)
        except ConnectFailed as exc:
            log.info("connect to MCP server %s failed: %s", server, exc)
            result = ConnectResult.FAILED
    target = f"/?connection={quote(server, safe='')}&connection_result={result.value}"
    return RedirectResponse(target, status_code=FOUND)
