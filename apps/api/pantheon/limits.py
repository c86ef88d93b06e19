"""Denial-of-wallet guards: turns per minute per key, and the request body size.

The rate limiter is a sliding-window log per API key (per user in local mode), held in
process memory: with several API processes each one enforces the limit on its own, so the
effective limit is ``turns_per_minute`` times the process count (documented in
docs/security.md). The body limit is an ASGI middleware, so it also covers bodies sent
without ``Content-Length`` (chunked): it counts the bytes as they arrive.
"""

from __future__ import annotations

import json
import math
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from fastapi import Request
from starlette.exceptions import HTTPException

from pantheon.deps import PrincipalDep, SettingsDep
from pantheon.errors import TooManyRequests
from pantheon.facade.errors import FACADE_PREFIX, error_body

Scope = dict[str, Any]
Message = dict[str, Any]
ASGIApp = Callable[..., Any]
WINDOW_S = 60.0


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


async def limit_turn_rate(request: Request, principal: PrincipalDep, settings: SettingsDep) -> None:
    """429 with ``Retry-After`` when this key started too many turns in the last minute."""
    limiter: RateLimiter = request.app.state.rate_limiter
    per_minute = settings.limits.turns_per_minute
    wait = limiter.hit(f"turns:{principal.limit_key}", per_minute)
    if wait is not None:
        retry_after = max(1, math.ceil(wait))
        raise TooManyRequests(
            f"turn rate limit reached: {per_minute} turns per minute per API key "
            f"(PANTHEON_LIMITS__TURNS_PER_MINUTE); retry in {retry_after} s",
            headers={"Retry-After": str(retry_after)},
            limit=per_minute,
        )


def _too_large_message(max_bytes: int) -> str:
    return f"request body is larger than {max_bytes} bytes (PANTHEON_LIMITS__MAX_BODY_BYTES)"


class BodyTooLarge(HTTPException):
    """Raised inside ``receive`` when a streamed body passes the limit.

    An ``HTTPException`` so FastAPI re-raises it from its body parsing (a plain exception
    there would become a 400) and the exception handler renders the 413.
    """

    def __init__(self, max_bytes: int) -> None:
        super().__init__(status_code=413, detail=_too_large_message(max_bytes))


class BodySizeLimit:
    """413 for request bodies over ``max_bytes``, declared or streamed."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: ASGIApp, send: ASGIApp) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.max_bytes:
            await self._reject(send, scope.get("path", ""))
            return
        received = 0
        started = False

        async def counting_receive() -> Message:
            nonlocal received
            message: Message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise BodyTooLarge(self.max_bytes)
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except BodyTooLarge:
            if not started:
                await self._reject(send, scope.get("path", ""))

    async def _reject(self, send: ASGIApp, path: str) -> None:
        message = _too_large_message(self.max_bytes)
        if path.startswith(FACADE_PREFIX):  # OpenAI clients parse OpenAI's error shape
            shaped = error_body(413, message)
        else:
            shaped = {"detail": message, "code": "too_large"}
        body = json.dumps(shaped).encode()
        headers = [(b"content-type", b"application/json"), (b"connection", b"close")]
        headers.append((b"content-length", str(len(body)).encode()))
        await send({"type": "http.response.start", "status": 413, "headers": headers})
        await send({"type": "http.response.body", "body": body})
