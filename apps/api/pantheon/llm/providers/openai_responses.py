"""The ``openai`` provider for aliases with ``api = "responses"``: ``POST /responses``.

The same promises as the chat provider (``openai_compat``): one POST per call, never
retried here, errors as ``LLMError`` classes mapped the same way, a stream cut before its
terminal event is ``Unavailable``, and stopping early closes the upstream response. The
body is ``responses_request``'s, the answer is read by ``responses_answer``.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

import aiohttp

from pantheon.llm.errors import Unavailable
from pantheon.llm.providers.openai_compat import MAX_ANSWER_BYTES, OpenAICompatProvider
from pantheon.llm.providers.responses_answer import (
    ResponsesStreamReader,
    parse_event,
    response_items,
)
from pantheon.llm.providers.responses_request import responses_body
from pantheon.llm.sse import SSEDecoder
from pantheon.llm.types import LLMRequest, ModelAlias, StreamItem


class OpenAIResponsesProvider(OpenAICompatProvider):
    """Responses API calls to ``alias.base_url``/responses."""

    path = "responses"

    def body(self, alias: ModelAlias, request: LLMRequest) -> dict[str, Any]:
        return responses_body(alias, request)

    def read_events(self, response: aiohttp.ClientResponse) -> AsyncGenerator[StreamItem, None]:
        return _stream_items(response)

    def read_whole(self, body: bytes) -> list[StreamItem]:
        return response_items(body)


async def _stream_items(response: aiohttp.ClientResponse) -> AsyncGenerator[StreamItem, None]:
    """Items from the SSE events; ``Unavailable`` if the stream ends without a result."""
    reader = ResponsesStreamReader()
    decoder = SSEDecoder(MAX_ANSWER_BYTES)
    async for chunk in response.content.iter_any():
        for sse in decoder.feed(chunk):
            data = sse.data.strip()
            if not data or data == "[DONE]":
                continue
            for item in reader.event(parse_event(data)):
                yield item
            if reader.finished:
                return
    raise Unavailable("stream interrupted")
