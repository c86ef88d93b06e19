"""Tool calls over the wire: what the provider sends and how it reads streamed, unstreamed
and hostile tool-call answers from the in-process mock server."""

from __future__ import annotations

import json
from dataclasses import replace

import aiohttp
import pytest

from pantheon.llm.errors import Unavailable
from pantheon.llm.gateway import LLMGateway
from pantheon.llm.providers.openai_compat import OpenAICompatProvider
from pantheon.llm.registry import ModelRegistry
from pantheon.llm.types import (
    ChatMessage,
    GatewayItem,
    TextDelta,
    ToolCall,
    ToolDefinition,
    Usage,
)
from pantheon.settings import LLMSettings
from tests.llm.mock_openai import REQUEST, MockOpenAI, Reply, completion, fragment, tool_chunk
from tests.llm.streams import RecordingSleep, collect, drain

CALCULATOR = ToolDefinition(
    name="calculator",
    description="Evaluate an arithmetic expression.",
    parameters={"type": "object", "properties": {"expression": {"type": "string"}}},
)
TOOL_REQUEST = replace(
    REQUEST,
    tools=(CALCULATOR,),
    messages=(
        ChatMessage("user", "2+2?"),
        ChatMessage("assistant", "", tool_calls=(ToolCall("call_1", "calculator", '{"e": 1}'),)),
        ChatMessage("tool", "4", tool_call_id="call_1"),
    ),
)
CALL = ToolCall("call_a", "calculator", '{"expression": "2+2"}')


def split_call(finish: str | None = "tool_calls") -> list[bytes]:
    """The call ``CALL`` streamed the OpenAI way: id and name first, arguments in pieces."""
    return [
        tool_chunk(fragment(0, "call_a", "calculator", "")),
        tool_chunk(fragment(0, arguments='{"expres')),
        tool_chunk(fragment(0, arguments='sion": "2+2"}')),
        tool_chunk(finish=finish),
    ]


async def test_sends_tools_tool_calls_and_tool_messages(
    openai_provider: OpenAICompatProvider, mock_openai: MockOpenAI
) -> None:
    await collect(openai_provider.stream(mock_openai.alias(), TOOL_REQUEST))
    body = mock_openai.received[0].body
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "calculator",
                "description": "Evaluate an arithmetic expression.",
                "parameters": {"type": "object", "properties": {"expression": {"type": "string"}}},
            },
        }
    ]
    assert body["tool_choice"] == "auto"
    assert body["stream"] is True
    assert body["messages"] == [
        {"role": "user", "content": "2+2?"},
        {
            "role": "assistant",
            # "", not null: llama-cpp-python's server answers null with a 500.
            "content": "",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "calculator", "arguments": '{"e": 1}'},
                }
            ],
        },
        {"role": "tool", "content": "4", "tool_call_id": "call_1"},
    ]


async def test_no_tools_sends_no_tool_keys(
    openai_provider: OpenAICompatProvider, mock_openai: MockOpenAI
) -> None:
    await collect(openai_provider.stream(mock_openai.alias(), REQUEST))
    assert not {"tools", "tool_choice", "response_format"} & set(mock_openai.received[0].body)


async def test_streamed_call_is_assembled_and_yielded_at_finish(
    openai_provider: OpenAICompatProvider, mock_openai: MockOpenAI
) -> None:
    mock_openai.queue(Reply(raw=split_call(), chunks=()))
    items = await collect(openai_provider.stream(mock_openai.alias(), TOOL_REQUEST))
    assert items == [CALL, Usage(7, 2)]


async def test_text_before_calls_streams_first(
    openai_provider: OpenAICompatProvider, mock_openai: MockOpenAI
) -> None:
    text = b'data: {"choices": [{"index": 0, "delta": {"content": "Let me see."}}]}\n\n'
    mock_openai.queue(Reply(raw=[text, *split_call()], chunks=(), usage=None))
    items = await collect(openai_provider.stream(mock_openai.alias(), TOOL_REQUEST))
    assert items == [TextDelta("Let me see."), CALL]


async def test_calls_are_flushed_by_done_without_a_finish_reason(
    openai_provider: OpenAICompatProvider, mock_openai: MockOpenAI
) -> None:
    mock_openai.queue(Reply(raw=split_call(finish=None), chunks=(), usage=None))
    items = await collect(openai_provider.stream(mock_openai.alias(), TOOL_REQUEST))
    assert items == [CALL]


async def test_a_stream_cut_inside_a_call_yields_no_call_and_is_retried(
    openai_gateway: LLMGateway, mock_openai: MockOpenAI, sleep: RecordingSleep
) -> None:
    mock_openai.queue(Reply(raw=split_call()[:2], chunks=(), usage=None, done=False))
    mock_openai.queue(Reply(raw=split_call(), chunks=()))
    result = await openai_gateway.complete(TOOL_REQUEST)
    assert result.tool_calls == (CALL,)
    assert len(sleep.delays) == 1


async def test_gateway_complete_carries_text_and_calls(
    openai_gateway: LLMGateway, mock_openai: MockOpenAI
) -> None:
    two = [
        tool_chunk(fragment(0, "c1", "calculator", '{"expression": "1+1"}')),
        tool_chunk(fragment(1, "c2", "calculator", '{"expression": "2+2"}'), finish="tool_calls"),
    ]
    mock_openai.queue(Reply(raw=two, chunks=()))
    result = await openai_gateway.complete(TOOL_REQUEST)
    assert [c.id for c in result.tool_calls] == ["c1", "c2"]
    assert result.usage == Usage(7, 2)


async def test_unstreamed_alias_sends_stream_false_and_reads_message_tool_calls(
    openai_provider: OpenAICompatProvider, mock_openai: MockOpenAI
) -> None:
    function = {"name": "calculator", "arguments": CALL.arguments}
    entry = {"id": "call_a", "type": "function", "function": function}
    mock_openai.queue(Reply(chunks=("Sure.",), tool_calls=[entry], usage=(30, 9)))
    alias = mock_openai.alias(stream_tools=False)
    items = await collect(openai_provider.stream(alias, TOOL_REQUEST))
    assert items == [TextDelta("Sure."), CALL, Usage(30, 9)]
    body = mock_openai.received[0].body
    assert body["stream"] is False
    assert "stream_options" not in body
    headers = {k.lower(): v for k, v in mock_openai.received[0].headers.items()}
    assert headers.get("accept") != "text/event-stream"


async def test_unstreamed_alias_still_streams_requests_without_tools(
    openai_provider: OpenAICompatProvider, mock_openai: MockOpenAI
) -> None:
    items = await collect(openai_provider.stream(mock_openai.alias(stream_tools=False), REQUEST))
    assert items == [TextDelta("Hello"), TextDelta(" world"), Usage(7, 2)]
    assert mock_openai.received[0].body["stream"] is True


async def test_a_json_answer_to_a_stream_request_is_read_as_a_completion(
    openai_provider: OpenAICompatProvider, mock_openai: MockOpenAI
) -> None:
    entry = {"type": "function", "function": {"name": "calculator", "arguments": "{}"}}
    body = json.dumps(completion(Reply(chunks=("ok",), tool_calls=[entry])))
    mock_openai.queue(Reply(content_type="application/json", body=body))
    items = await collect(openai_provider.stream(mock_openai.alias(), TOOL_REQUEST))
    assert items[0] == TextDelta("ok")
    assert isinstance(items[1], ToolCall)
    assert (items[1].name, items[1].arguments) == ("calculator", "{}")
    assert items[1].id.startswith("call_")
    assert items[2] == Usage(7, 2)


@pytest.mark.parametrize(
    "arguments",
    ['{"e": "\\ud800"}', '{"e": "\\u0000"}', "\ud800\x00", "x" * 3_000_000],
    ids=["escaped-surrogate", "escaped-nul", "raw-surrogate-and-nul", "huge"],
)
async def test_hostile_arguments_never_crash(
    openai_provider: OpenAICompatProvider, mock_openai: MockOpenAI, arguments: str
) -> None:
    frame = json.dumps(
        {
            "choices": [
                {
                    "delta": {"tool_calls": [fragment(0, "c", "calculator", arguments)]},
                    "finish_reason": "tool_calls",
                }
            ]
        }
    )
    mock_openai.queue(Reply(raw=[f"data: {frame}\n\n".encode()], chunks=()))
    items = await collect(openai_provider.stream(mock_openai.alias(), TOOL_REQUEST))
    call = items[0]
    assert isinstance(call, ToolCall)
    (call.id + call.name + call.arguments).encode("utf-8")
    assert "\x00" not in call.arguments


async def test_an_escaped_lone_surrogate_in_text_is_replaced(
    openai_provider: OpenAICompatProvider, mock_openai: MockOpenAI
) -> None:
    choice = '{"delta": {"content": "a\\ud800b\\u0000"}, "finish_reason": "stop"}'
    frame = f'data: {{"choices": [{choice}]}}\n\n'.encode()
    mock_openai.queue(Reply(raw=[frame], chunks=(), usage=None))
    items = await collect(openai_provider.stream(mock_openai.alias(), REQUEST))
    assert items == [TextDelta("a\ufffdb\ufffd")]


async def test_deeply_nested_json_is_a_malformed_chunk(
    openai_provider: OpenAICompatProvider, mock_openai: MockOpenAI
) -> None:
    mock_openai.queue(Reply(raw=[b"data: " + b"[" * 100_000 + b"\n\n"]))
    with pytest.raises(Unavailable, match="malformed"):
        await collect(openai_provider.stream(mock_openai.alias(), REQUEST))


async def test_no_retry_after_a_call_was_yielded(
    openai_gateway: LLMGateway, mock_openai: MockOpenAI, sleep: RecordingSleep
) -> None:
    mock_openai.queue(Reply(raw=split_call(), chunks=("x",), cut_after=0))
    seen: list[GatewayItem] = []
    with pytest.raises(Unavailable, match="interrupted"):
        await drain(openai_gateway.stream(TOOL_REQUEST), seen)
    assert seen == [CALL]
    assert len(mock_openai.received) == 1
    assert sleep.delays == []


async def test_a_stall_inside_a_call_times_out_and_is_retried(
    upstream: aiohttp.ClientSession, mock_openai: MockOpenAI, sleep: RecordingSleep
) -> None:
    settings = LLMSettings(read_timeout_s=0.05, max_attempts=2)
    provider = OpenAICompatProvider(upstream, settings)
    registry = ModelRegistry([mock_openai.alias()])
    gateway = LLMGateway(registry, {"openai": provider}, settings, sleep=sleep)
    mock_openai.queue(Reply(raw=split_call()[:2], chunks=("x",), stall_after=0))
    mock_openai.queue(Reply(raw=split_call(), chunks=()))
    result = await gateway.complete(TOOL_REQUEST)
    assert result.tool_calls == (CALL,)
    assert len(sleep.delays) == 1
