"""The OpenAI-compatible provider against the in-process mock server: the happy paths,
usage, auth, streams cut midway and cancellation (errors: test_openai_errors.py)."""

from __future__ import annotations

import asyncio

import pytest

from pantheon.llm.errors import Unavailable
from pantheon.llm.gateway import LLMGateway
from pantheon.llm.providers.openai_compat import OpenAICompatProvider
from pantheon.llm.types import GatewayItem, TextDelta, Usage
from tests.llm.mock_openai import REQUEST, MockOpenAI, Reply
from tests.llm.streams import RecordingSleep, collect, drain, texts


async def test_streams_deltas_and_usage(
    openai_provider: OpenAICompatProvider, mock_openai: MockOpenAI
) -> None:
    items = await collect(openai_provider.stream(mock_openai.alias(), REQUEST))
    assert items == [TextDelta("Hello"), TextDelta(" world"), Usage(7, 2)]
    assert mock_openai.received[0].body == {
        "model": "smollm2",
        "messages": [
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": "hi"},
        ],
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_tokens": 50,
        "temperature": 0.2,
    }
    assert "Authorization" not in mock_openai.received[0].headers


async def test_sends_the_api_key_from_the_named_variable(
    openai_provider: OpenAICompatProvider,
    mock_openai: MockOpenAI,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MOCK_KEY", "sk-test")
    await collect(openai_provider.stream(mock_openai.alias(api_key_env="MOCK_KEY"), REQUEST))
    assert mock_openai.received[0].headers["Authorization"] == "Bearer sk-test"


async def test_unset_key_variable_sends_no_authorization(
    openai_provider: OpenAICompatProvider,
    mock_openai: MockOpenAI,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("MOCK_KEY", raising=False)
    await collect(openai_provider.stream(mock_openai.alias(api_key_env="MOCK_KEY"), REQUEST))
    assert "Authorization" not in mock_openai.received[0].headers


async def test_gateway_passes_upstream_usage_through(
    openai_gateway: LLMGateway, mock_openai: MockOpenAI
) -> None:
    completion = await openai_gateway.complete(REQUEST)
    assert completion.text == "Hello world"
    assert completion.usage == Usage(input_tokens=7, output_tokens=2)


async def test_gateway_estimates_usage_when_upstream_sends_none(
    openai_gateway: LLMGateway, mock_openai: MockOpenAI
) -> None:
    mock_openai.queue(Reply(usage=None))
    completion = await openai_gateway.complete(REQUEST)
    assert completion.text == "Hello world"
    assert completion.usage.estimated
    assert completion.usage.output_tokens > 0


async def test_finish_reason_without_done_is_a_complete_stream(
    openai_provider: OpenAICompatProvider, mock_openai: MockOpenAI
) -> None:
    mock_openai.queue(Reply(usage=None, done=False))
    items = await collect(openai_provider.stream(mock_openai.alias(), REQUEST))
    assert texts(items) == ["Hello", " world"]


async def test_odd_but_valid_frames_are_skipped(
    openai_provider: OpenAICompatProvider, mock_openai: MockOpenAI
) -> None:
    frames = [b": comment\n\n", b"data: \n\n", b'data: {"choices": [{"delta": {}}]}\n\n']
    mock_openai.queue(Reply(raw=frames))
    items = await collect(openai_provider.stream(mock_openai.alias(), REQUEST))
    assert texts(items) == ["Hello", " world"]


async def test_429_with_retry_after_then_success(
    openai_gateway: LLMGateway, mock_openai: MockOpenAI, sleep: RecordingSleep
) -> None:
    mock_openai.queue(Reply(status=429, headers={"Retry-After": "3"}))
    assert (await openai_gateway.complete(REQUEST)).text == "Hello world"
    assert sleep.delays == [3.0]
    assert len(mock_openai.received) == 2


async def test_500_three_times_exhausts_the_attempts(
    openai_gateway: LLMGateway, mock_openai: MockOpenAI, sleep: RecordingSleep
) -> None:
    mock_openai.queue(*[Reply(status=500, body="boom")] * 3)
    with pytest.raises(Unavailable, match="upstream returned 500: boom") as failed:
        await openai_gateway.complete(REQUEST)
    assert failed.value.code == "upstream_error"  # answered with an error: not unreachable
    assert len(mock_openai.received) == 3
    assert sleep.delays == [0.5, 1.0]


async def test_connection_cut_midway_is_not_retried(
    openai_gateway: LLMGateway, mock_openai: MockOpenAI, sleep: RecordingSleep
) -> None:
    mock_openai.queue(Reply(chunks=("a", "b", "c", "d"), cut_after=2))
    seen: list[GatewayItem] = []
    with pytest.raises(Unavailable, match="stream interrupted"):
        await drain(openai_gateway.stream(REQUEST), seen)
    assert texts(seen) == ["a", "b"]
    assert len(mock_openai.received) == 1
    assert sleep.delays == []


async def test_cut_before_any_text_is_retried(
    openai_gateway: LLMGateway, mock_openai: MockOpenAI, sleep: RecordingSleep
) -> None:
    mock_openai.queue(Reply(cut_after=0))
    assert (await openai_gateway.complete(REQUEST)).text == "Hello world"
    assert len(sleep.delays) == 1


async def test_clean_end_without_done_or_finish_is_interrupted(
    openai_provider: OpenAICompatProvider, mock_openai: MockOpenAI
) -> None:
    mock_openai.queue(Reply(finish=False, done=False, usage=None))
    seen: list[GatewayItem] = []
    with pytest.raises(Unavailable, match="stream interrupted"):
        await drain(openai_provider.stream(mock_openai.alias(), REQUEST), seen)
    assert texts(seen) == ["Hello", " world"]


async def test_cancel_mid_stream_closes_the_upstream(
    openai_gateway: LLMGateway, mock_openai: MockOpenAI
) -> None:
    mock_openai.queue(Reply(chunks=("a", "b", "c"), hang_after=2))
    stream = openai_gateway.stream(REQUEST)
    assert [await anext(stream), await anext(stream)] == [TextDelta("a"), TextDelta("b")]
    await stream.aclose()
    await asyncio.wait_for(mock_openai.client_gone.wait(), timeout=2)
