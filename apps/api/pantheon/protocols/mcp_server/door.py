"""What the ``/mcp`` door checks and repairs before the SDK sees a request.

The SDK's own checks are close but not exact: it compares header values verbatim (a
padded ``Mcp-Name`` is a "header mismatch"), its handshake-era transport takes a request
whose id is no string or integer for a notification (202, never answered), and its
DNS-rebinding check matches ``Host`` by prefix (``localhost:80@evil.example`` passes).
Pantheon answers these here, in JSON-RPC's shape, and leaves the rest to the SDK.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from mcp_types import INVALID_REQUEST
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import Message, Receive, Scope

from pantheon.users.auth import is_loopback_host

# RFC 9110 §5.6.3: optional whitespace is spaces and horizontal tabs.
_OWS = b" \t"
_ORIGIN_SCHEMES = ("http", "https")


def jsonrpc_error(message: str, code: int = INVALID_REQUEST) -> dict[str, Any]:
    """A JSON-RPC error body without a request id (the request was refused before it)."""
    return {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}


def without_padding(scope: Scope) -> Scope:
    """``scope`` with each header value's surrounding whitespace removed: RFC 9110 §5.5
    says it is no part of the value (and the MCP spec that servers accept it), while the
    SDK compares ``Mcp-Name``, ``Mcp-Method`` and the version header verbatim."""
    headers = [(name, value.strip(_OWS)) for name, value in scope["headers"]]
    return {**scope, "headers": headers}


def is_loopback_authority(authority: str) -> bool:
    """Whether ``authority`` (a ``Host`` value) is exactly a loopback host and an optional
    port (RFC 9110 §7.2: ``uri-host [":" port]``): no userinfo, path or bad port."""
    if "@" in authority:
        return False
    try:
        parts = urlsplit(f"//{authority}")
        parts.port  # noqa: B018  (raises ValueError for a port that is no port)
    except ValueError:
        return False
    if parts.netloc != authority or parts.hostname is None:
        return False
    return is_loopback_host(parts.hostname)


def is_loopback_origin(origin: str) -> bool:
    """Whether ``origin`` (an ``Origin`` value) is ``http(s)://`` and a loopback authority,
    with nothing after it (RFC 6454 §7)."""
    try:
        parts = urlsplit(origin)
    except ValueError:
        return False
    if parts.scheme not in _ORIGIN_SCHEMES or f"{parts.scheme}://{parts.netloc}" != origin:
        return False
    return is_loopback_authority(parts.netloc)


def rebinding_refusal(request: Request) -> JSONResponse | None:
    """``local`` mode's DNS-rebinding guard: a ``Host`` that is not loopback is 421, a
    browser ``Origin`` that is not is 403 (an absent ``Origin`` is no browser's)."""
    host = request.headers.get("host", "")
    if not is_loopback_authority(host):
        body = jsonrpc_error(f"Misdirected Request: Host {host!r} is not a loopback host")
        return JSONResponse(body, status_code=421)
    origin = request.headers.get("origin")
    if origin and not is_loopback_origin(origin):
        body = jsonrpc_error(f"Forbidden: Origin {origin!r} is not a loopback origin")
        return JSONResponse(body, status_code=403)
    return None


def _is_request_id(value: Any) -> bool:
    # JSON-RPC 2.0 §4 and MCP: a string or an integer (never null, a float, a bool).
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def invalid_id_refusal(body: bytes) -> JSONResponse | None:
    """A request (it has a ``method``) whose ``id`` is present but neither a string nor an
    integer is an invalid request (-32600, id null). Bodies that are not JSON objects are
    the SDK's to answer (parse error, invalid params)."""
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if not isinstance(message, dict) or "method" not in message or "id" not in message:
        return None
    if _is_request_id(message["id"]):
        return None
    shown = json.dumps(message["id"])[:40]
    text = f"Invalid Request: the id must be a string or an integer, not {shown}"
    return JSONResponse(jsonrpc_error(text), status_code=400)


@dataclass
class Replay:
    """A ``receive`` that hands the already-read body to the SDK, then the client's own
    later messages (a disconnect)."""

    body: bytes
    receive: Receive
    sent: bool = False

    async def __call__(self) -> Message:
        if self.sent:
            return await self.receive()
        self.sent = True
        return {"type": "http.request", "body": self.body, "more_body": False}
