"""Aliases with ``api = "responses"``: what the provider sends to a Responses API upstream
and how it reads streamed, unstreamed, failed and hostile answers (in-process mock)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pantheon.config_file import read_config_file
from pantheon.llm.errors import BadRequest, LLMError, RateLimited, Unavailable
from pantheon.llm.gateway import LLMGateway
from pantheon.llm.http import make_upstream_session
from pantheon.llm.providers.openai_responses import OpenAIResponsesProvider
from pantheon.llm.registry import ModelRegistry, load_models
from pantheon.llm.types import (
    ChatMessage,
    LLMRequest,
    ModelAlias,
    ResponseFormat,
    Retrying,
    StreamItem,
    TextDelta,
    ToolCall,
    ToolDefinition,
    Usage,
)
from pantheon.settings import LLMSettings
from tests.llm.mock_responses import MockResponses, ResponsesReply

CALCULATOR = ToolDefinition("calculator", "Arithmetic.", {"type": "object", "properties": {}})
ASK = LLMRequest(
    model="resp",
    messages=(ChatMessage("system", "be brief"), ChatMessage("user", "hi")),
    max_tokens=50,
    temperature=0.2,
)
TOOL_HISTORY = replace(
    ASK,
    tools=(CALCULATOR,),
    messages=(
        ChatMessage("user", "17*23?"),
        ChatMessage("assistant", "", tool_calls=(ToolCall("call_1", "calculator", '{"e": 1}'),)),
        ChatMessage("tool", "391", tool_call_id="call_1"),
    ),
)


@pytest.fixture
async def upstream() -> AsyncIterator[MockResponses]:
    server = MockResponses()
    await server.start()
    yield server
    await server.stop()


def _alias(upstream: MockResponses, **options: Any) -> ModelAlias:
    return ModelAlias(
        name="resp", base_url=upstream.base_url, model="gpt-x", api="responses", **options
    )


async def _collect(
    upstream: MockResponses, request: LLMRequest, **options: Any
) -> list[StreamItem]:
    settings = LLMSettings(max_attempts=3, backoff_base_s=0.001, backoff_max_s=0.002)
    async with make_upstream_session(settings) as session:
        provider = OpenAIResponsesProvider(session, settings)
        registry = ModelRegistry([_alias(upstream, **options)])
        gateway = LLMGateway(registry, {"openai_responses": provider}, settings)
        return [item async for item in gateway.stream(request) if not isinstance(item, Retrying)]


async def test_text_streams_as_deltas_with_the_upstream_usage(upstream: MockResponses) -> None:
    upstream.responder = lambda _b: ResponsesReply()
    items = await _collect(upstream, ASK)
    assert items == [TextDelta("Hello"), TextDelta(" there"), Usage(11, 3)]
    body = upstream.received[0]
    assert body["model"] == "gpt-x"
    assert body["input"] == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "hi"},
    ]
    assert body["stream"] is True
    assert body["store"] is False
    assert body["max_output_tokens"] == 50
    assert body["temperature"] == 0.2


async def test_tool_calls_and_their_results_travel_as_items(upstream: MockResponses) -> None:
    upstream.responder = lambda _b: ResponsesReply(
        chunks=(), calls=(("c9", "calculator", '{"x": 2}'),)
    )
    items = await _collect(upstream, TOOL_HISTORY)
    assert items == [ToolCall("c9", "calculator", '{"x": 2}'), Usage(11, 3)]
    body = upstream.received[0]
    assert body["input"] == [
        {"role": "user", "content": "17*23?"},
        {
            "type": "function_call",
            "call_id": "call_1",
            "name": "calculator",
            "arguments": '{"e": 1}',
        },
        {"type": "function_call_output", "call_id": "call_1", "output": "391"},
    ]
    assert body["tools"] == [
        {"type": "function", "name": "calculator", "description": "Arithmetic.",
         "parameters": {"type": "object", "properties": {}}, "strict": False}
    ]  # fmt: skip
    assert body["tool_choice"] == "auto"


async def test_arguments_sent_only_as_deltas_are_assembled(upstream: MockResponses) -> None:
    upstream.responder = lambda _b: ResponsesReply(
        chunks=(), calls=(("c1", "calculator", '{"e": "1+1"}'),), split_arguments=True
    )
    items = await _collect(upstream, TOOL_HISTORY)
    assert items[0] == ToolCall("c1", "calculator", '{"e": "1+1"}')


async def test_an_alias_that_cannot_stream_tools_reads_one_response_object(
    upstream: MockResponses,
) -> None:
    upstream.responder = lambda _b: ResponsesReply(
        chunks=("ok",), calls=(("c2", "calculator", "{}"),)
    )
    items = await _collect(upstream, TOOL_HISTORY, stream_tools=False)
    assert upstream.received[0]["stream"] is False
    assert items == [TextDelta("ok"), ToolCall("c2", "calculator", "{}"), Usage(11, 3)]


async def test_structured_output_goes_in_text_format(upstream: MockResponses) -> None:
    schema = {"type": "object", "properties": {"agents": {"type": "array"}}}
    ask = replace(ASK, response_format=ResponseFormat("routing decision", schema))
    await _collect(upstream, ask, structured_output="json_schema")
    fmt = upstream.received[0]["text"]["format"]
    assert fmt == {
        "type": "json_schema",
        "name": "routing_decision",
        "schema": schema,
        "strict": False,
    }


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (ResponsesReply(chunks=(), failed="server_error"), Unavailable),
        (ResponsesReply(chunks=(), failed="rate_limit_exceeded"), RateLimited),
        (ResponsesReply(chunks=(), cut=True), Unavailable),
    ],
)
async def test_a_failed_or_cut_response_is_an_upstream_failure(
    upstream: MockResponses, reply: ResponsesReply, error: type[LLMError]
) -> None:
    upstream.responder = lambda _b: reply
    with pytest.raises(error):
        await _collect(upstream, ASK)
    assert len(upstream.received) == 3  # retried like any unavailable upstream


async def test_a_response_cut_after_its_text_is_not_retried(upstream: MockResponses) -> None:
    upstream.responder = lambda _b: ResponsesReply(cut=True)
    with pytest.raises(Unavailable):
        await _collect(upstream, ASK)
    assert len(upstream.received) == 1  # text already reached the client


async def test_a_refused_request_is_not_retried(upstream: MockResponses) -> None:
    upstream.responder = lambda _b: ResponsesReply(status=400)
    with pytest.raises(BadRequest):
        await _collect(upstream, ASK)
    assert len(upstream.received) == 1


def test_the_config_file_chooses_the_api(tmp_path: Path) -> None:
    config = tmp_path / "p.toml"
    config.write_text('[models.r]\nbase_url = "http://x/v1"\napi = "responses"\n')
    (alias,) = load_models(read_config_file(config))
    assert alias.api == "responses"
    assert alias.provider_key == "openai_responses"
    config.write_text('[models.r]\nbase_url = "http://x/v1"\napi = "completions"\n')
    with pytest.raises(ValueError, match="api must be one of chat, responses"):
        load_models(read_config_file(config))
    config.write_text('[models.r]\nprovider = "scripted"\napi = "responses"\n')
    with pytest.raises(ValueError, match="api applies to provider openai only"):
        load_models(read_config_file(config))
