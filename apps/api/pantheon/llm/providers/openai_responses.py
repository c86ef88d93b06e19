"""The ``openai`` provider for aliases with ``api = "responses"``: ``POST /responses``.

The same promises as the chat provider (``openai_compat``): one POST per call, never
retried here, errors as ``LLMError`` classes mapped the same way, a stream cut before its
terminal event is ``Unavailable``, and stopping early closes the upstream response. The
body is ``responses_request``'s, the answer is read by ``responses_answer``.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, AsyncIterator

import httpx
from httpx_sse import EventSource, SSEError

from pantheon.llm.errors import BadRequest, Unavailable
from pantheon.llm.http import upstream_timeout
from pantheon.llm.providers.openai_compat import post_for_items
from pantheon.llm.providers.responses_answer import (
    NOT_A_RESPONSE,
    ResponsesStreamReader,
    parse_event,
    response_items,
)
from pantheon.llm.providers.responses_request import responses_body
from pantheon.llm.types import LLMRequest, ModelAlias, StreamItem
from pantheon.settings import LLMSettings


class OpenAIResponsesProvider:
    """Responses API calls to ``alias.base_url``/responses."""

    def __init__(self, client: httpx.AsyncClient, settings: LLMSettings) -> None:
        self._client = client
        self._timeout = upstream_timeout(settings)

    async def stream(
        self, alias: ModelAlias, request: LLMRequest
    ) -> AsyncGenerator[StreamItem, None]:
        url = f"{alias.base_url.rstrip('/')}/responses"
        answer = post_for_items(
            self._client, self._timeout, alias, url, responses_body(alias, request),
            events=_stream_items, whole=response_items,
        )  # fmt: skip
        async with contextlib.aclosing(answer) as items:
            async for item in items:
                yield item


async def _stream_items(source: EventSource) -> AsyncIterator[StreamItem]:
    """Items from the SSE events; ``Unavailable`` if the stream ends without a result."""
    reader = ResponsesStreamReader()
    try:
        async for sse in source.aiter_sse():
            data = sse.data.strip()
            if not data or data == "[DONE]":
                continue
            for item in reader.event(parse_event(data)):
                yield item
            if reader.finished:
                return
    except SSEError as exc:
        raise BadRequest(NOT_A_RESPONSE) from exc
    raise Unavailable("stream interrupted")
