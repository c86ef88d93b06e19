"""Any OpenAI-compatible ``/chat/completions`` endpoint, streamed over SSE.

Promises (on top of ``providers.base``): one POST per call, never retried here; each
non-empty ``choices[0].delta.content`` becomes a ``TextDelta``; the upstream's usage
chunk becomes the ``Usage``. Every failure is one of the ``LLMError`` classes: 429 ->
``RateLimited``; 408, 409, 5xx, connection failures and streams cut before ``[DONE]``
or a ``finish_reason`` -> ``Unavailable``; timeouts -> ``Timeout``; other 4xx ->
``BadRequest``. ``Retry-After`` (seconds or HTTP date) is carried as ``retry_after_s``.
When the consumer stops iterating, the upstream response is closed, not drained.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncGenerator, AsyncIterator
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import aiohttp
import httpx
from httpx_sse import EventSource, SSEError, aconnect_sse

from pantheon.llm.errors import BadRequest, LLMError, RateLimited, Timeout, Unavailable
from pantheon.llm.http import upstream_timeout
from pantheon.llm.types import LLMRequest, ModelAlias, StreamItem, TextDelta, Usage
from pantheon.settings import LLMSettings

_ERROR_BODY_CHARS = 200


class OpenAICompatProvider:
    """The ``openai`` provider: streams chat completions from ``alias.base_url``."""

    def __init__(self, client: httpx.AsyncClient, settings: LLMSettings) -> None:
        self._client = client
        self._timeout = upstream_timeout(settings)

    async def stream(
        self, alias: ModelAlias, request: LLMRequest
    ) -> AsyncGenerator[StreamItem, None]:
        url = f"{alias.base_url.rstrip('/')}/chat/completions"
        started = False
        try:
            async with aconnect_sse(
                self._client,
                "POST",
                url,
                json=request_body(alias, request),
                headers=_headers(alias),
                timeout=self._timeout,
            ) as source:
                await _raise_for_status(source.response)
                started = True
                async for item in _items(source):
                    yield item
        except (httpx.HTTPError, aiohttp.ClientError, TimeoutError) as exc:
            raise transport_error(exc, started=started) from exc
        except httpx.InvalidURL as exc:
            raise BadRequest(f"invalid upstream URL for model alias {alias.name!r}") from exc


def request_body(alias: ModelAlias, request: LLMRequest) -> dict[str, Any]:
    """The JSON body: upstream model id, messages, streaming with usage."""
    body: dict[str, Any] = {
        "model": alias.model,
        "messages": [{"role": m.role, "content": m.content} for m in request.messages],
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if request.max_tokens is not None:
        body["max_tokens"] = request.max_tokens
    if request.temperature is not None:
        body["temperature"] = request.temperature
    return body


def _headers(alias: ModelAlias) -> dict[str, str]:
    key = os.environ.get(alias.api_key_env) if alias.api_key_env else None
    return {"Authorization": f"Bearer {key}"} if key else {}


async def _items(source: EventSource) -> AsyncIterator[StreamItem]:
    """Deltas and usage from the SSE events; ``Unavailable`` if the stream is cut."""
    finished = False
    try:
        async for event in source.aiter_sse():
            data = event.data.strip()
            if data == "[DONE]":
                return
            if not data:
                continue
            items, done = chunk_items(_parse_chunk(data))
            finished = finished or done
            for item in items:
                yield item
    except SSEError as exc:
        raise BadRequest("upstream did not answer with an event stream") from exc
    if not finished:
        raise Unavailable("stream interrupted")


def chunk_items(chunk: dict[str, Any]) -> tuple[list[StreamItem], bool]:
    """The items in one ``chat.completion.chunk`` and whether it carried a finish_reason."""
    items: list[StreamItem] = []
    choices = chunk.get("choices")
    choice: Any = choices[0] if isinstance(choices, list) and choices else {}
    choice = choice if isinstance(choice, dict) else {}
    delta = choice.get("delta")
    content = delta.get("content") if isinstance(delta, dict) else None
    if isinstance(content, str) and content:
        items.append(TextDelta(content))
    usage = chunk.get("usage")
    if isinstance(usage, dict):
        items.append(
            Usage(
                input_tokens=int(usage.get("prompt_tokens") or 0),
                output_tokens=int(usage.get("completion_tokens") or 0),
            )
        )
    return items, bool(choice.get("finish_reason"))


def _parse_chunk(data: str) -> dict[str, Any]:
    try:
        chunk = json.loads(data)
    except ValueError:
        raise Unavailable("malformed upstream stream chunk") from None
    if not isinstance(chunk, dict):
        raise Unavailable("malformed upstream stream chunk")
    if "error" in chunk:
        # Some gateways (OpenRouter, vLLM) report failures inside an open stream.
        raise Unavailable(f"upstream error mid-stream: {_error_text(chunk)}")
    return chunk


async def _raise_for_status(response: httpx.Response) -> None:
    status = response.status_code
    if status < 400:
        return
    await response.aread()
    detail = _error_text(_json_or_none(response.text)) or response.text
    message = f"upstream returned {status}: {' '.join(detail.split())[:_ERROR_BODY_CHARS]}"
    retry_after = parse_retry_after(response.headers.get("retry-after"))
    if status == 429:
        raise RateLimited(message, retry_after_s=retry_after)
    if status in (408, 409) or status >= 500:
        raise Unavailable(message, retry_after_s=retry_after)
    raise BadRequest(message)


def _json_or_none(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _error_text(body: Any) -> str:
    """``error.message`` (or ``error`` itself) from an OpenAI-style error body."""
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        return str(error.get("message") or error)
    return str(error) if error else ""


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
    """Map an httpx / aiohttp failure; ``started`` means the response headers had arrived."""
    name = type(exc).__name__
    if isinstance(exc, httpx.UnsupportedProtocol):
        return BadRequest(f"unsupported upstream URL ({exc})")
    if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout):
        # httpx-aiohttp maps aiohttp's connection errors, even mid-body, to these two.
        if started:
            return Unavailable("stream interrupted")
        return Unavailable(f"cannot connect to upstream ({name})")
    if isinstance(exc, httpx.TimeoutException | TimeoutError):
        return Timeout(f"upstream timed out ({name})")
    if started:
        return Unavailable("stream interrupted")
    return Unavailable(f"upstream request failed ({name})")
