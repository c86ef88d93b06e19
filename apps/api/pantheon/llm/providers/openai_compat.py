"""Any OpenAI-compatible ``/chat/completions`` endpoint, streamed over SSE.

Promises (on top of ``providers.base``): one POST per call, never retried here. The body
is built by ``openai_request`` (tools, tool messages, structured output, streaming or
not); the answer is read by ``openai_answer``: text deltas as they arrive, tool calls
assembled and yielded complete when the choice finishes, the upstream's usage as the
``Usage``. An upstream that answers a streamed request with one JSON ``chat.completion``
is read the same way. Every failure is one of the ``LLMError`` classes
(``openai_errors``); a stream cut before ``[DONE]`` or a ``finish_reason`` is
``Unavailable`` and yields none of its pending tool calls. When the consumer stops
iterating, the upstream response is closed, not drained. A request sent unstreamed has no
read timeout: its answer comes whole, and the gateway bounds it by the call's deadline.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import AsyncGenerator, Callable
from typing import Any

import aiohttp

from pantheon.llm.errors import BadRequest, Unavailable
from pantheon.llm.http import upstream_timeout, whole_answer_timeout
from pantheon.llm.providers.openai_answer import StreamReader, completion_items, parse_chunk
from pantheon.llm.providers.openai_errors import (
    parse_retry_after,
    raise_for_status,
    transport_error,
)
from pantheon.llm.providers.openai_request import request_body, streams
from pantheon.llm.sse import SSEDecoder
from pantheon.llm.types import LLMRequest, ModelAlias, StreamItem
from pantheon.observability.trace_context import outgoing_headers
from pantheon.settings import LLMSettings

__all__ = [
    "MAX_ANSWER_BYTES",
    "OpenAICompatProvider",
    "is_event_stream",
    "parse_retry_after",
    "post_for_items",
    "read_bounded",
    "request_body",
    "upstream_headers",
]

logger = logging.getLogger("pantheon.llm.upstream")

# A non-streamed answer is read whole before it is parsed, and one streamed event is held
# until its end: bound what either may cost.
MAX_ANSWER_BYTES = 16 * 1024 * 1024


class OpenAICompatProvider:
    """The ``openai`` provider: chat completions from ``alias.base_url``. The Responses API
    provider is this class with its own ``path``, body and readers."""

    path = "chat/completions"

    def __init__(self, session: aiohttp.ClientSession, settings: LLMSettings) -> None:
        self._session = session
        self._timeout = upstream_timeout(settings)
        self._whole_timeout = whole_answer_timeout(settings)

    def streams(self, alias: ModelAlias, request: LLMRequest) -> bool:
        """Whether ``request`` goes with ``stream: true`` (not when tools go to an alias
        with ``stream_tools = false``); ``providers.base.ChoosesStreaming``."""
        return streams(alias, request)

    def body(self, alias: ModelAlias, request: LLMRequest) -> dict[str, Any]:
        return request_body(alias, request)

    def read_events(self, response: aiohttp.ClientResponse) -> AsyncGenerator[StreamItem, None]:
        return _stream_items(response)

    def read_whole(self, body: bytes) -> list[StreamItem]:
        return completion_items(body)

    def stream(self, alias: ModelAlias, request: LLMRequest) -> AsyncGenerator[StreamItem, None]:
        url = f"{alias.base_url.rstrip('/')}/{self.path}"
        body = self.body(alias, request)
        limits = self._timeout if body["stream"] else self._whole_timeout
        return post_for_items(
            self._session, limits, alias, url, body,
            events=self.read_events, whole=self.read_whole,
        )  # fmt: skip


async def post_for_items(
    session: aiohttp.ClientSession,
    limits: aiohttp.ClientTimeout,
    alias: ModelAlias,
    url: str,
    body: dict[str, Any],
    *,
    events: Callable[[aiohttp.ClientResponse], AsyncGenerator[StreamItem, None]],
    whole: Callable[[bytes], list[StreamItem]],
) -> AsyncGenerator[StreamItem, None]:
    """One POST of ``body`` to an OpenAI-style upstream, its answer as items: read by
    ``events`` when it streams, by ``whole`` when it answers one JSON body. Shared by the
    chat completions and Responses API providers: the same headers, size bound and errors.
    Closing the generator early closes the upstream response (not drained)."""
    started = False
    try:
        async with session.post(
            url,
            json=body,
            headers=upstream_headers(alias, streamed=bool(body["stream"])),
            timeout=limits,
        ) as response:
            logger.info("POST %s -> %d", url, response.status)  # not the reason: upstream text
            await raise_for_status(response)
            started = True
            if is_event_stream(response):
                async with contextlib.aclosing(events(response)) as items:
                    async for item in items:
                        yield item
            else:
                for item in whole(await read_bounded(response)):
                    yield item
    except aiohttp.InvalidURL as exc:
        raise BadRequest(f"invalid upstream URL for model alias {alias.name!r}") from exc
    except aiohttp.NonHttpUrlClientError as exc:
        raise BadRequest(f"model alias {alias.name!r} has a URL that is not http(s)") from exc
    except (aiohttp.ClientError, TimeoutError) as exc:
        raise transport_error(exc, started=started) from exc


def upstream_headers(alias: ModelAlias, *, streamed: bool) -> dict[str, str]:
    headers = {"Accept": "text/event-stream", "Cache-Control": "no-store"} if streamed else {}
    key = os.environ.get(alias.api_key_env) if alias.api_key_env else None
    if key:
        headers["Authorization"] = f"Bearer {key}"
    headers.update(outgoing_headers())  # the turn's traceparent, when traced
    return headers


def is_event_stream(response: aiohttp.ClientResponse) -> bool:
    return "text/event-stream" in response.headers.get("content-type", "")


async def read_bounded(response: aiohttp.ClientResponse) -> bytes:
    """The whole body, or ``BadRequest`` past ``MAX_ANSWER_BYTES``."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.content.iter_any():
        size += len(chunk)
        if size > MAX_ANSWER_BYTES:
            raise BadRequest(f"upstream answer larger than {MAX_ANSWER_BYTES} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


async def _stream_items(response: aiohttp.ClientResponse) -> AsyncGenerator[StreamItem, None]:
    """Items from the SSE events; ``Unavailable`` if the stream is cut."""
    reader = StreamReader()
    decoder = SSEDecoder(MAX_ANSWER_BYTES)
    async for chunk in response.content.iter_any():
        for event in decoder.feed(chunk):
            data = event.data.strip()
            if data == "[DONE]":
                for item in reader.end():
                    yield item
                return
            if data:
                for item in reader.chunk(parse_chunk(data)):
                    yield item
    if not reader.finished:
        raise Unavailable("stream interrupted")
