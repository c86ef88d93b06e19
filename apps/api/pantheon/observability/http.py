"""HTTP request metrics, by route template (``/v1/sessions/{session_id}/turns``), never by
raw path: a path that matches no route counts as ``unmatched``, so probing cannot grow
the label set. The request's ``traceparent`` is noted for a turn it may start (tracing)."""

from __future__ import annotations

import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pantheon.observability import metrics
from pantheon.observability.trace_context import incoming_traceparent

UNMATCHED = "unmatched"


def route_template(scope: Scope) -> str:
    """The matched route's path template, or ``unmatched``."""
    path = getattr(scope.get("route"), "path", None)
    return path if isinstance(path, str) and path else UNMATCHED


def header(scope: Scope, name: bytes) -> str | None:
    """The first value of header ``name`` (lower-case), if the request has it."""
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


class HttpMetrics:
    """Pure ASGI middleware: counts each HTTP request when its response ends."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.monotonic()
        incoming_traceparent.set(header(scope, b"traceparent"))
        status = 500  # an app that raised before answering: the server sends a 500

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            route, method = route_template(scope), scope["method"]
            metrics.HTTP_REQUESTS.labels(method=method, route=route, status=str(status)).inc()
            metrics.HTTP_DURATION.labels(method=method, route=route).observe(
                time.monotonic() - started
            )
