"""How the OpenAI-compatible provider maps HTTP and transport failures to ``LLMError``.

429 -> ``RateLimited``; 408, 409, 5xx, connection failures and streams cut midway ->
``Unavailable``; timeouts -> ``Timeout``; other 4xx and unusable URLs -> ``BadRequest``.
An upstream that refuses the request as invalid (a 4xx other than 401/403, or a 5xx whose
body names validation errors, as llama-cpp-python's server does) -> ``BadRequest`` with
``refusal`` set: no retry can help, and the user is told why. ``Retry-After`` (seconds or
an HTTP date) is carried as ``retry_after_s``. Error bodies are untrusted: only a short,
whitespace-folded excerpt reaches the message.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import aiohttp

from pantheon.llm.errors import (
    BadRequest,
    LLMError,
    RateLimited,
    Timeout,
    Unavailable,
    UpstreamError,
)
from pantheon.text import clean_text

_ERROR_BODY_CHARS = 200
# "7 validation errors:", "1 validation error for X", "ValidationError": a 5xx body that
# says the request itself was invalid, so sending it again cannot succeed.
_VALIDATION = re.compile(r"validation ?errors?\b", re.IGNORECASE)
# Authentication failures may echo parts of a key: their text stays in the logs.
_UNSHOWN_REFUSALS = (401, 403)
# What is read of an error body: enough for any real message, bounded for a hostile one.
_ERROR_BODY_BYTES = 64 * 1024


async def raise_for_status(response: aiohttp.ClientResponse) -> None:
    """Nothing for a success; the matching ``LLMError`` for an error status."""
    status = response.status
    if status < 400:
        return
    text = (await _head(response)).decode("utf-8", "replace")
    detail = error_text(_json_or_none(text)) or text
    excerpt = clean_text(" ".join(detail.split())[:_ERROR_BODY_CHARS])
    message = f"upstream returned {status}: {excerpt}"
    retry_after = parse_retry_after(response.headers.get("retry-after"))
    if status == 429:
        raise RateLimited(message, retry_after_s=retry_after)
    if status >= 500 and _VALIDATION.search(detail):
        raise BadRequest(f"upstream refused the request ({status}): {excerpt}", refusal=excerpt)
    if status >= 500:
        raise UpstreamError(message, retry_after_s=retry_after)
    if status in (408, 409):
        raise Unavailable(message, retry_after_s=retry_after)
    raise BadRequest(message, refusal=None if status in _UNSHOWN_REFUSALS else excerpt)


async def _head(response: aiohttp.ClientResponse) -> bytes:
    """At most ``_ERROR_BODY_BYTES`` of the body; the rest is never read."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.content.iter_any():
        chunks.append(chunk)
        size += len(chunk)
        if size >= _ERROR_BODY_BYTES:
            break
    return b"".join(chunks)[:_ERROR_BODY_BYTES]


def error_text(body: Any) -> str:
    """``error.message`` (or ``error`` itself) from an OpenAI-style error body."""
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        return str(error.get("message") or error)
    return str(error) if error else ""


def _json_or_none(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def parse_retry_after(value: str | None) -> float | None:
    """Seconds to wait from a ``Retry-After`` value: delta-seconds or an HTTP date."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def transport_error(exc: BaseException, *, started: bool) -> LLMError:
    """Map an aiohttp failure; ``started`` means the response headers had arrived."""
    name = type(exc).__name__
    if started:
        if isinstance(exc, aiohttp.SocketTimeoutError):
            return Timeout(f"upstream timed out ({name})")
        return Unavailable("stream interrupted")
    if isinstance(exc, aiohttp.ConnectionTimeoutError | aiohttp.ClientConnectorError):
        return Unavailable(f"cannot connect to upstream ({name})")
    if isinstance(exc, TimeoutError):
        return Timeout(f"upstream timed out ({name})")
    return Unavailable(f"upstream request failed ({name})")
