"""Denial-of-wallet guards: turns per minute per key, and the request body size.

The rate limiter is a sliding-window log per API key (per user in local mode), held in
process memory; with ``PANTHEON_REDIS_URL`` set, every replica shares one log per key in
Redis (``turns.shared.rate``), so the limit holds across replicas and workers. The body
limit is an ASGI middleware, so it also covers bodies sent
without ``Content-Length`` (chunked): it counts the bytes as they arrive, and bounds the
time they may take to arrive.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from fastapi import Request
from starlette.exceptions import HTTPException

from pantheon.deps import PrincipalDep, SettingsDep
from pantheon.errors import TooManyRequests
from pantheon.facade.errors import FACADE_PREFIX, error_body

Scope = dict[str, Any]
Message = dict[str, Any]
ASGIApp = Callable[..., Any]
WINDOW_S = 60.0


class TurnRateLimiter(Protocol):
    async def allow(self, key: str, limit: int, window_s: float = WINDOW_S) -> float | None:
        """Count an event and return ``None``, or the seconds to wait when over the limit."""


class RateLimiter:
    """At most ``limit`` events per ``window_s`` seconds per key (sliding window)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._events: dict[str, deque[float]] = {}

    def hit(self, key: str, limit: int, window_s: float = WINDOW_S) -> float | None:
        """Record an event and return ``None``, or the seconds to wait when over the limit."""
        now = self._clock()
        events = self._events.setdefault(key, deque())
        while events and events[0] <= now - window_s:
            events.popleft()
        if len(events) >= limit:
            return events[0] + window_s - now
        events.append(now)
        return None

    async def allow(self, key: str, limit: int, window_s: float = WINDOW_S) -> float | None:
        return self.hit(key, limit, window_s)


async def limit_turn_rate(request: Request, principal: PrincipalDep, settings: SettingsDep) -> None:
    """429 with ``Retry-After`` when this key started too many turns in the last minute."""
    limiter: TurnRateLimiter = request.app.state.rate_limiter
    per_minute = settings.limits.turns_per_minute
    wait = await limiter.allow(f"turns:{principal.limit_key}", per_minute)
    if wait is not None:
        retry_after = max(1, math.ceil(wait))
        raise TooManyRequests(
            f"turn rate limit reached: {per_minute} turns per minute per API key "
            f"(PANTHEON_LIMITS__TURNS_PER_MINUTE); retry in {retry_after} s",
            headers={"Retry-After": str(retry_after)},
            limit=per_minute,
        )


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


class BodyTooLarge(HTTPException):
    """Raised inside ``receive`` when a streamed body passes the limit.

    An ``HTTPException`` so FastAPI re-raises it from its body parsing (a plain exception
    there would become a 400) and the exception handler renders the 413.
    """

    def __init__(self, message: str) -> None:
        super().__init__(status_code=413, detail=message)


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
    for it (a stalled client would otherwise hold the request, and its worker, forever)."""

    def __init__(
        self,
        app: ASGIApp,
        max_bytes: int,
        timeout_s: float = 60.0,
        routes: Sequence[RouteLimit] = (),
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.timeout_s = timeout_s
        self.routes = list(routes)

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
        declared = dict(scope["headers"]).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > max_bytes:
            await self._reject(send, too_large, scope.get("path", ""))
            return
        received = 0
        started = False
        body_done = False
        deadline: float | None = None

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
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except BodyTooLarge:
            if not started:
                await self._reject(send, too_large, scope.get("path", ""))

    async def _reject(self, send: ASGIApp, message: str, path: str) -> None:
        if path.startswith(FACADE_PREFIX):  # OpenAI clients parse OpenAI's error shape
            shaped = error_body(413, message)
        else:
            shaped = {"detail": message, "code": "too_large"}
        body = json.dumps(shaped).encode()
        headers = [(b"content-type", b"application/json"), (b"connection", b"close")]
        headers.append((b"content-length", str(len(body)).encode()))
        await send({"type": "http.response.start", "status": 413, "headers": headers})
        await send({"type": "http.response.body", "body": body})
