"""The request body's limits: an ASGI middleware, so it also covers bodies sent without
``Content-Length`` (chunked): it counts the bytes as they arrive (413 past the limit, a
route's own limit for uploads), bounds the time they may take to arrive (408) and how deep
a JSON body nests (422 past ``limits.max_json_depth``, before any parser recurses into it).

Its refusals are written before any route runs, in the shape ``ErrorShapes`` gives the path
(OpenAI's under the facade, 400 there): it knows no protocol itself.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from starlette.exceptions import HTTPException

from pantheon.errors import ErrorShapes
from pantheon.json_depth import JsonDepth, is_json

Scope = dict[str, Any]
Message = dict[str, Any]
ASGIApp = Callable[..., Any]


@dataclass(frozen=True, slots=True)
class RouteLimit:
    """A body limit of its own for some routes (uploads), named in the 413 message."""

    method: str
    path: re.Pattern[str]
    max_bytes: int
    message: str


# Room for the multipart envelope (boundaries, part headers) around a file of max_bytes:
# the file's own size is checked exactly by the knowledge service.
MULTIPART_OVERHEAD = 64 * 1024
UPLOAD_PATH = re.compile(r"^/v1/(rooms|agents)/[^/]+/documents/?$")


def upload_limits(max_file_bytes: int) -> list[RouteLimit]:
    """Document uploads may carry a file of ``knowledge.max_bytes`` (not the JSON limit)."""
    message = (
        f"the upload is larger than {max_file_bytes} bytes "
        "(knowledge.max_bytes, PANTHEON_KNOWLEDGE__MAX_BYTES)"
    )
    return [RouteLimit("POST", UPLOAD_PATH, max_file_bytes + MULTIPART_OVERHEAD, message)]


def _too_large_message(max_bytes: int) -> str:
    return f"request body is larger than {max_bytes} bytes (PANTHEON_LIMITS__MAX_BODY_BYTES)"


class BodyRefused(HTTPException):
    """Raised inside ``receive`` when a streamed body breaks a limit.

    An ``HTTPException`` so FastAPI re-raises it from its body parsing (a plain exception
    there would become a 400) and the exception handler renders it; an app that lets it
    escape (the MCP SDK's) gets it rendered here.
    """

    code = "error"

    def __init__(self, status: int, message: str) -> None:
        super().__init__(status_code=status, detail=message)


class BodyTooLarge(BodyRefused):
    code = "too_large"

    def __init__(self, message: str) -> None:
        super().__init__(413, message)


class BodyTooDeep(BodyRefused):
    code = "unprocessable"

    def __init__(self, max_depth: int) -> None:
        super().__init__(
            422,
            f"the JSON body nests deeper than {max_depth} levels of arrays and objects "
            "(PANTHEON_LIMITS__MAX_JSON_DEPTH)",
        )


class BodyTimedOut(HTTPException):
    """Raised inside ``receive`` when the body is not complete by its deadline (an
    ``HTTPException`` for the same reason as ``BodyTooLarge``)."""

    def __init__(self, timeout_s: float) -> None:
        super().__init__(
            status_code=408,
            detail=f"the request body did not arrive within {timeout_s:g} s "
            "(PANTHEON_LIMITS__BODY_TIMEOUT_S)",
            headers={"Connection": "close"},
        )


class BodySizeLimit:
    """413 for request bodies over ``max_bytes`` (or a route's own limit), declared or
    streamed; 408 for a body still incomplete ``timeout_s`` after the app first asked
    for it (a stalled client would otherwise hold the request, and its worker, forever);
    422 for a JSON body nested deeper than ``max_depth``."""

    def __init__(
        self,
        app: ASGIApp,
        max_bytes: int,
        timeout_s: float = 60.0,
        routes: Sequence[RouteLimit] = (),
        shapes: ErrorShapes | None = None,
        max_depth: int = 64,
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.timeout_s = timeout_s
        self.max_depth = max_depth
        self.routes = list(routes)
        self.shapes = shapes or ErrorShapes()

    def _limit(self, scope: Scope) -> tuple[int, str]:
        for route in self.routes:
            if scope.get("method") == route.method and route.path.match(scope.get("path", "")):
                return route.max_bytes, route.message
        return self.max_bytes, _too_large_message(self.max_bytes)

    async def __call__(self, scope: Scope, receive: ASGIApp, send: ASGIApp) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        max_bytes, too_large = self._limit(scope)
        headers = dict(scope["headers"])
        declared = headers.get(b"content-length", b"")
        if declared.isdigit() and int(declared) > max_bytes:
            await self._reject(send, BodyTooLarge(too_large), scope.get("path", ""))
            return
        received = 0
        started = False
        body_done = False
        deadline: float | None = None
        json_body = is_json(headers.get(b"content-type", b"").decode("latin-1"))
        nesting = JsonDepth() if json_body else None

        async def counting_receive() -> Message:
            nonlocal received, body_done, deadline
            if body_done:  # later calls wait for the disconnect: no deadline on those
                done_message: Message = await receive()
                return done_message
            loop = asyncio.get_running_loop()
            deadline = deadline or loop.time() + self.timeout_s
            try:
                async with asyncio.timeout_at(deadline):
                    message: Message = await receive()
            except TimeoutError:
                raise BodyTimedOut(self.timeout_s) from None
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                body_done = not message.get("more_body", False)
                if received > max_bytes:
                    raise BodyTooLarge(too_large)
                if nesting and nesting.feed(message.get("body", b"")) > self.max_depth:
                    raise BodyTooDeep(self.max_depth)
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except BodyRefused as refused:
            if not started:
                await self._reject(send, refused, scope.get("path", ""))

    async def _reject(self, send: ASGIApp, refused: BodyRefused, path: str) -> None:
        status, shaped = self.shapes.shape(path, refused.status_code, refused.detail, refused.code)
        body = json.dumps(shaped).encode()
        headers = [(b"content-type", b"application/json"), (b"connection", b"close")]
        headers.append((b"content-length", str(len(body)).encode()))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})
