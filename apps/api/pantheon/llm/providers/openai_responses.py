"""The ``openai`` provider for aliases with ``api = "responses"``: ``POST /responses``.

The same promises as the chat provider (``openai_compat``): one POST per call, never
retried here, errors as ``LLMError`` classes mapped the same way, a stream cut before its
terminal event is ``Unavailable``, and stopping early closes the upstream response. The
body is ``responses_request``'s, the answer is read by ``responses_answer``.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator

import aiohttp
import httpx
from httpx_sse import EventSource, SSEError

from pantheon.llm.errors import BadRequest, Unavailable
from pantheon.llm.http import upstream_timeout
from pantheon.llm.providers.openai_compat import is_event_stream, read_bounded, upstream_headers
from pantheon.llm.providers.openai_errors import raise_for_status, transport_error
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
        body = responses_body(alias, request)
        started = False
        try:
            async with self._client.stream(
                "POST",
                url,
                json=body,
                headers=upstream_headers(alias, streamed=bool(body["stream"])),
                timeout=self._timeout,
            ) as response:
                await raise_for_status(response)
                started = True
                if is_event_stream(response):
                    async for item in _stream_items(EventSource(response)):
                        yield item
                else:
                    for item in response_items(await read_bounded(response)):
                        yield item
        except (httpx.HTTPError, aiohttp.ClientError, TimeoutError) as exc:
            raise transport_error(exc, started=started) from exc
        except httpx.InvalidURL as exc:
            raise BadRequest(f"invalid upstream URL for model alias {alias.name!r}") from exc


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
