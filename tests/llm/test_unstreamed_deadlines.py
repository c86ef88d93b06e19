"""A request sent unstreamed (tools to a ``stream_tools = false`` alias, as the local model
does) gets its answer whole: no gap between chunks to bound, so neither the stall timeout
nor the per-read timeout may cut it; only the call's deadline does (issue 33, item 25)."""

from __future__ import annotations

from dataclasses import replace

import aiohttp
import pytest

from pantheon.llm.errors import CallTimedOut, LLMError
from pantheon.llm.gateway import LLMGateway
from pantheon.llm.providers.openai_compat import OpenAICompatProvider
from pantheon.llm.registry import ModelRegistry
from pantheon.llm.types import GatewayItem, Retrying, ToolCall, ToolDefinition
from pantheon.settings import LLMSettings
from tests.llm.mock_openai import REQUEST, MockOpenAI, Reply
from tests.llm.streams import MaxRandom, RecordingSleep, collect, drain

CALCULATOR = ToolDefinition(
    name="calculator",
    description="Evaluate an arithmetic expression.",
    parameters={"type": "object", "properties": {"expression": {"type": "string"}}},
)
TOOL_REQUEST = replace(REQUEST, tools=(CALCULATOR,))
ENTRY = {
    "id": "call_a",
    "type": "function",
    "function": {"name": "calculator", "arguments": '{"expression": "2+2"}'},
}
# Short stall and read limits, a generous call deadline: the answer comes after the first
# two and well within the third, however slow the machine.
TIGHT = LLMSettings(
    stall_timeout_s=0.1,
    read_timeout_s=0.1,
    call_timeout_s=60.0,
    max_attempts=3,
    backoff_base_s=0.01,
    backoff_max_s=0.02,
)


def _gateway(
    upstream: aiohttp.ClientSession, mock_openai: MockOpenAI, settings: LLMSettings
) -> LLMGateway:
    registry = ModelRegistry([mock_openai.alias(stream_tools=False)])
    providers = {"openai": OpenAICompatProvider(upstream, settings)}
    return LLMGateway(registry, providers, settings, sleep=RecordingSleep(), rng=MaxRandom())


async def test_an_unstreamed_answer_slower_than_the_stall_limit_arrives_without_retry(
    upstream: aiohttp.ClientSession, mock_openai: MockOpenAI
) -> None:
    mock_openai.queue(Reply(chunks=("Sure.",), tool_calls=[ENTRY], delay_s=0.6))
    gateway = _gateway(upstream, mock_openai, TIGHT)
    items = await collect(gateway.stream(TOOL_REQUEST))
    assert not [i for i in items if isinstance(i, Retrying)]
    assert ToolCall("call_a", "calculator", '{"expression": "2+2"}') in items
    assert len(mock_openai.received) == 1
    assert mock_openai.received[0].body["stream"] is False


async def test_an_unstreamed_answer_is_bounded_by_the_call_deadline(
    upstream: aiohttp.ClientSession, mock_openai: MockOpenAI
) -> None:
    mock_openai.queue(Reply(tool_calls=[ENTRY], delay_s=60))
    gateway = _gateway(upstream, mock_openai, TIGHT.model_copy(update={"call_timeout_s": 0.5}))
    with pytest.raises(CallTimedOut, match=r"longer than 0\.5 s"):
        await gateway.complete(TOOL_REQUEST)
    assert len(mock_openai.received) == 1  # the deadline is final: no retry


async def test_a_streamed_call_on_the_same_alias_still_stalls_and_is_retried(
    upstream: aiohttp.ClientSession, mock_openai: MockOpenAI
) -> None:
    mock_openai.queue(*[Reply(delay_s=60)] * 3)
    received: list[GatewayItem] = []
    with pytest.raises(LLMError) as raised:
        await drain(_gateway(upstream, mock_openai, TIGHT).stream(REQUEST), received)
    assert raised.value.code == "timeout"
    assert len(mock_openai.received) == 3
    assert mock_openai.received[0].body["stream"] is True
    assert len([i for i in received if isinstance(i, Retrying)]) == 2
