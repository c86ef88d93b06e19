"""Every error path of the OpenAI-compatible provider maps to the right ``LLMError``."""

from __future__ import annotations

import socket
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import aiohttp
import pytest

from pantheon.llm.errors import BadRequest, LLMError, RateLimited, Timeout, Unavailable
from pantheon.llm.gateway import LLMGateway
from pantheon.llm.providers.openai_compat import OpenAICompatProvider, parse_retry_after
from pantheon.llm.registry import ModelRegistry
from pantheon.llm.types import GatewayItem, ModelAlias
from pantheon.settings import LLMSettings
from tests.llm.mock_openai import REQUEST, MockOpenAI, Reply
from tests.llm.streams import RecordingSleep, collect, drain, texts


@pytest.mark.parametrize(
    ("status", "error"),
    [(429, RateLimited), (408, Unavailable), (409, Unavailable), (503, Unavailable)],
)
async def test_retryable_statuses_carry_retry_after(
    openai_provider: OpenAICompatProvider,
    mock_openai: MockOpenAI,
    status: int,
    error: type[LLMError],
) -> None:
    mock_openai.queue(Reply(status=status, headers={"Retry-After": "1.5"}))
    with pytest.raises(error) as info:
        await collect(openai_provider.stream(mock_openai.alias(), REQUEST))
    assert info.value.retryable
    assert info.value.retry_after_s == 1.5


@pytest.mark.parametrize("status", [400, 401, 404, 422])
async def test_other_4xx_is_a_bad_request_and_not_retried(
    openai_gateway: LLMGateway, mock_openai: MockOpenAI, sleep: RecordingSleep, status: int
) -> None:
    mock_openai.queue(Reply(status=status))
    with pytest.raises(BadRequest, match=f"upstream returned {status}: nope"):
        await openai_gateway.complete(REQUEST)
    assert len(mock_openai.received) == 1
    assert sleep.delays == []


async def test_long_error_bodies_are_shortened(
    openai_provider: OpenAICompatProvider, mock_openai: MockOpenAI
) -> None:
    mock_openai.queue(Reply(status=400, body="x" * 5000))
    with pytest.raises(BadRequest) as info:
        await collect(openai_provider.stream(mock_openai.alias(), REQUEST))
    assert len(info.value.message) < 300


async def test_non_stream_answer_is_a_bad_request(
    openai_provider: OpenAICompatProvider, mock_openai: MockOpenAI
) -> None:
    mock_openai.queue(Reply(content_type="application/json", body="{}"))
    with pytest.raises(BadRequest, match="event stream"):
        await collect(openai_provider.stream(mock_openai.alias(), REQUEST))


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (b'data: {"error": {"message": "overloaded"}}\n\n', "mid-stream: overloaded"),
        (b"data: {not json\n\n", "malformed"),
        (b"data: [1, 2]\n\n", "malformed"),
    ],
)
async def test_bad_frames_are_unavailable(
    openai_provider: OpenAICompatProvider, mock_openai: MockOpenAI, frame: bytes, message: str
) -> None:
    mock_openai.queue(Reply(raw=[frame]))
    with pytest.raises(Unavailable, match=message):
        await collect(openai_provider.stream(mock_openai.alias(), REQUEST))


async def test_connection_refused_is_unavailable(
    openai_provider: OpenAICompatProvider,
) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    alias = ModelAlias(name="dead", base_url=f"http://127.0.0.1:{port}/v1", model="m")
    with pytest.raises(Unavailable, match="cannot connect"):
        await collect(openai_provider.stream(alias, REQUEST))


async def test_slow_upstream_is_a_timeout(
    upstream: aiohttp.ClientSession, mock_openai: MockOpenAI
) -> None:
    provider = OpenAICompatProvider(upstream, LLMSettings(read_timeout_s=0.05))
    mock_openai.queue(Reply(delay_s=0.2))
    with pytest.raises(Timeout):
        await collect(provider.stream(mock_openai.alias(), REQUEST))


async def test_stall_mid_stream_is_a_timeout_and_not_retried(
    upstream: aiohttp.ClientSession, mock_openai: MockOpenAI, sleep: RecordingSleep
) -> None:
    settings = LLMSettings(read_timeout_s=0.05)
    provider = OpenAICompatProvider(upstream, settings)
    registry = ModelRegistry([mock_openai.alias()])
    gateway = LLMGateway(registry, {"openai": provider}, settings, sleep=sleep)
    mock_openai.queue(Reply(chunks=("a", "b"), stall_after=1))
    seen: list[GatewayItem] = []
    with pytest.raises(Timeout):
        await drain(gateway.stream(REQUEST), seen)
    assert texts(seen) == ["a"]
    assert sleep.delays == []


@pytest.mark.parametrize("base_url", ["ftp://127.0.0.1/v1", "http://[::1"])
async def test_bad_url_is_a_bad_request(
    openai_provider: OpenAICompatProvider, base_url: str
) -> None:
    with pytest.raises(BadRequest):
        await collect(openai_provider.stream(ModelAlias(name="x", base_url=base_url), REQUEST))


def test_parse_retry_after() -> None:
    assert parse_retry_after(None) is None
    assert parse_retry_after("2") == 2.0
    assert parse_retry_after("-5") == 0.0
    assert parse_retry_after("soon") is None
    later = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    assert 25 < (parse_retry_after(later) or 0) <= 30
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0


@pytest.mark.parametrize(
    "body",
    [
        '{"error": {"message": "7 validation errors: Input should be a valid string"}}',
        '{"error": "1 validation error for ChatCompletionRequest"}',
        "pydantic_core.ValidationError: messages.2.content",
    ],
)
async def test_a_5xx_that_names_validation_is_a_refusal_and_not_retried(
    openai_gateway: LLMGateway, mock_openai: MockOpenAI, sleep: RecordingSleep, body: str
) -> None:
    mock_openai.queue(*[Reply(status=500, body=body)] * 3)
    with pytest.raises(BadRequest, match="upstream refused the request \\(500\\)") as info:
        await openai_gateway.complete(REQUEST)
    assert len(mock_openai.received) == 1
    assert sleep.delays == []
    assert info.value.refusal is not None
    assert "alidation" in info.value.refusal


async def test_a_refusal_carries_the_bounded_reason_but_not_for_authentication(
    openai_provider: OpenAICompatProvider, mock_openai: MockOpenAI
) -> None:
    mock_openai.queue(Reply(status=400, body="y" * 5000), Reply(status=401, body="sk-abc"))
    with pytest.raises(BadRequest) as refused:
        await collect(openai_provider.stream(mock_openai.alias(), REQUEST))
    assert refused.value.refusal == "y" * 200
    with pytest.raises(BadRequest) as unauthorized:
        await collect(openai_provider.stream(mock_openai.alias(), REQUEST))
    assert unauthorized.value.refusal is None
