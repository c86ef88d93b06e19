from __future__ import annotations

from collections.abc import AsyncGenerator

import pytest

from pantheon.llm.errors import BadRequest, RateLimited, Timeout, Unavailable, UnknownModel
from pantheon.llm.gateway import LLMGateway
from pantheon.llm.providers.base import Provider
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.llm.registry import SCRIPTED_ALIAS, ModelRegistry
from pantheon.llm.tokens import estimate_messages, estimate_tokens
from pantheon.llm.types import (
    ChatMessage,
    Completion,
    GatewayItem,
    LLMRequest,
    ModelAlias,
    Retrying,
    StreamItem,
    TextDelta,
    Usage,
)
from pantheon.settings import LLMSettings
from tests.llm.streams import MaxRandom, RecordingSleep, drain, texts

REQUEST = LLMRequest(model="scripted", messages=(ChatMessage("user", "hi"),))


@pytest.fixture
def scripted() -> ScriptedProvider:
    return ScriptedProvider()


@pytest.fixture
def gateway(
    scripted: ScriptedProvider, llm_settings: LLMSettings, sleep: RecordingSleep
) -> LLMGateway:
    registry = ModelRegistry([SCRIPTED_ALIAS, ModelAlias(name="orphan", provider="openai")])
    return LLMGateway(registry, {"scripted": scripted}, llm_settings, sleep=sleep, rng=MaxRandom())


async def test_streams_deltas_then_the_provider_usage(
    gateway: LLMGateway, scripted: ScriptedProvider
) -> None:
    scripted.script("one two")
    items = [item async for item in gateway.stream(REQUEST)]
    assert texts(items) == ["one ", "two"]
    assert items[-1] == Usage(input_tokens=estimate_messages(REQUEST.messages), output_tokens=2)
    assert gateway.providers["scripted"] is scripted
    assert "scripted" in gateway.registry


async def test_complete_folds_the_stream(gateway: LLMGateway, scripted: ScriptedProvider) -> None:
    scripted.script("one two three")
    completion = await gateway.complete(REQUEST)
    assert completion == Completion(
        text="one two three",
        usage=Usage(input_tokens=estimate_messages(REQUEST.messages), output_tokens=3),
    )


async def test_unknown_alias_and_missing_provider(gateway: LLMGateway) -> None:
    with pytest.raises(UnknownModel, match="known: orphan, scripted"):
        await gateway.complete(LLMRequest(model="nope", messages=()))
    with pytest.raises(BadRequest, match="no provider 'openai'"):
        await gateway.complete(LLMRequest(model="orphan", messages=()))


async def test_rate_limit_then_success_backs_off(
    gateway: LLMGateway, scripted: ScriptedProvider, sleep: RecordingSleep
) -> None:
    scripted.script("ok")
    scripted.script(error=RateLimited("429"), times=1)
    assert (await gateway.complete(REQUEST)).text == "ok"
    assert sleep.delays == [0.5]  # base * 2**0, jitter at its maximum
    assert len(scripted.requests) == 2


async def test_backoff_doubles_and_is_capped(
    gateway: LLMGateway, scripted: ScriptedProvider, sleep: RecordingSleep
) -> None:
    scripted.script(error=Timeout("slow"))
    with pytest.raises(Timeout):
        await gateway.complete(REQUEST)
    assert sleep.delays == [0.5, 1.0]
    assert gateway.backoff_delay(10) == 4.0


async def test_retry_after_is_honoured(
    gateway: LLMGateway, scripted: ScriptedProvider, sleep: RecordingSleep
) -> None:
    scripted.script("ok")
    scripted.script(error=RateLimited("429", retry_after_s=20), times=1)
    scripted.script(error=Unavailable("503", retry_after_s=3), times=1)
    assert (await gateway.complete(REQUEST)).text == "ok"
    assert sleep.delays == [3.0, 20.0]  # at least Retry-After


async def test_unavailable_exhausts_the_attempts(
    gateway: LLMGateway, scripted: ScriptedProvider, sleep: RecordingSleep
) -> None:
    scripted.script(error=Unavailable("500"))
    with pytest.raises(Unavailable, match="500"):
        await gateway.complete(REQUEST)
    assert len(scripted.requests) == 3
    assert len(sleep.delays) == 2


async def test_bad_request_is_not_retried(
    gateway: LLMGateway, scripted: ScriptedProvider, sleep: RecordingSleep
) -> None:
    scripted.script(error=BadRequest("400"))
    with pytest.raises(BadRequest):
        await gateway.complete(REQUEST)
    assert len(scripted.requests) == 1
    assert sleep.delays == []


async def test_no_retry_once_text_was_streamed(
    gateway: LLMGateway, scripted: ScriptedProvider, sleep: RecordingSleep
) -> None:
    scripted.script("a b c", error=Unavailable("cut"), error_at_chunk=2)
    seen: list[GatewayItem] = []
    with pytest.raises(Unavailable, match="cut"):
        await drain(gateway.stream(REQUEST), seen)
    assert texts(seen) == ["a ", "b "]
    assert len(scripted.requests) == 1
    assert sleep.delays == []


async def test_usage_is_estimated_when_the_provider_sends_none(
    scripted: ScriptedProvider, llm_settings: LLMSettings
) -> None:
    class NoUsage:
        async def stream(
            self, alias: ModelAlias, request: LLMRequest
        ) -> AsyncGenerator[StreamItem, None]:
            for text in ("twelve chars", "", " more"):
                yield TextDelta(text)

    providers: dict[str, Provider] = {"scripted": NoUsage()}
    gateway = LLMGateway(ModelRegistry([SCRIPTED_ALIAS]), providers, llm_settings)
    items = [item async for item in gateway.stream(REQUEST)]
    assert texts(items) == ["twelve chars", " more"]  # empty deltas are dropped
    assert items[-1] == Usage(
        input_tokens=estimate_messages(REQUEST.messages),
        output_tokens=estimate_tokens("twelve chars more"),
        estimated=True,
    )
    assert sum(isinstance(i, Usage) for i in items) == 1


async def test_closing_the_stream_closes_the_provider_stream(
    gateway: LLMGateway, scripted: ScriptedProvider
) -> None:
    scripted.script("a b c d")
    stream = gateway.stream(REQUEST)
    assert await anext(stream) == TextDelta("a ")
    await stream.aclose()
    assert scripted.requests[0].cancelled


async def test_each_retry_is_announced_before_its_wait(
    gateway: LLMGateway, scripted: ScriptedProvider, sleep: RecordingSleep
) -> None:
    scripted.script("ok")
    scripted.script(error=RateLimited("429", retry_after_s=3), times=1)
    scripted.script(error=Unavailable("503"), times=1)
    items = [item async for item in gateway.stream(REQUEST)]
    retries = [item for item in items if isinstance(item, Retrying)]
    assert retries == [Retrying(2, 3, "unavailable", 0.5), Retrying(3, 3, "rate_limited", 3.0)]
    assert sleep.delays == [0.5, 3.0]
    assert texts(items) == ["ok"]
