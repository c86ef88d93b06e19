"""Deadlines of the gateway: a stalled, dripping or long-waiting upstream ends the call in
bounded time, and upstream text that cannot be stored is replaced, not fatal."""

from __future__ import annotations

import asyncio

import pytest

from pantheon.llm.deadline import current_deadline, deadline_scope
from pantheon.llm.errors import CallTimedOut, DeadlineExceeded, RateLimited, Timeout, Unavailable
from pantheon.llm.gateway import LLMGateway
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.llm.registry import SCRIPTED_ALIAS, ModelRegistry
from pantheon.llm.types import ChatMessage, GatewayItem, LLMRequest, ToolCall
from pantheon.settings import LLMSettings
from tests.llm.streams import MaxRandom, RecordingSleep, drain, texts

REQUEST = LLMRequest(model="scripted", messages=(ChatMessage("user", "hi"),))


def _gateway(scripted: ScriptedProvider, sleep: RecordingSleep, **settings: float) -> LLMGateway:
    llm = LLMSettings(max_attempts=3, backoff_base_s=0.01, backoff_max_s=0.02).model_copy(
        update=settings
    )
    registry = ModelRegistry([SCRIPTED_ALIAS])
    return LLMGateway(registry, {"scripted": scripted}, llm, sleep=sleep, rng=MaxRandom())


async def test_a_stalled_upstream_times_out_and_is_retried() -> None:
    scripted, sleep = ScriptedProvider(), RecordingSleep()
    scripted.script(delay_s=30)  # never answers within the stall timeout
    gateway = _gateway(scripted, sleep, stall_timeout_s=0.05)
    with pytest.raises(Timeout, match=r"no data from the upstream for 0\.05 s"):
        await asyncio.wait_for(gateway.complete(REQUEST), timeout=5)
    assert len(scripted.requests) == 3  # a stall is retryable, within max_attempts
    assert all(r.cancelled for r in scripted.requests)


async def test_a_dripping_upstream_is_cut_at_the_call_deadline() -> None:
    scripted, sleep = ScriptedProvider(), RecordingSleep()
    scripted.script(" ".join(["drip"] * 1000), chunk_delay_s=0.02)
    gateway = _gateway(scripted, sleep, stall_timeout_s=1.0, call_timeout_s=0.3)
    received: list[GatewayItem] = []
    loop = asyncio.get_running_loop()
    start = loop.time()
    with pytest.raises(CallTimedOut, match=r"longer than 0\.3 s") as raised:
        await drain(gateway.stream(REQUEST), received)
    assert raised.value.code == "timeout"
    assert 0.25 <= loop.time() - start < 2.0
    assert 3 <= len(texts(received)) < 1000  # what arrived was passed on; no retry after it
    assert len(scripted.requests) == 1


async def test_a_long_retry_after_fails_the_call_at_once_saying_why() -> None:
    scripted, sleep = ScriptedProvider(), RecordingSleep()
    scripted.script(error=RateLimited("429", retry_after_s=3600))
    gateway = _gateway(scripted, sleep, max_retry_after_s=30)
    with pytest.raises(RateLimited, match=r"asked to wait 3600 s, more than the 30 s allowed"):
        await gateway.complete(REQUEST)
    assert len(scripted.requests) == 1
    assert sleep.delays == []


async def test_no_retry_waits_past_the_turn_deadline() -> None:
    scripted, sleep = ScriptedProvider(), RecordingSleep()
    scripted.script(error=Unavailable("503", retry_after_s=5))
    gateway = _gateway(scripted, sleep, max_retry_after_s=30)
    with deadline_scope(1.0), pytest.raises(Unavailable, match="no time left for a retry"):
        await gateway.complete(REQUEST)
    assert sleep.delays == []


async def test_the_turn_deadline_bounds_every_call_within_it() -> None:
    scripted, sleep = ScriptedProvider(), RecordingSleep()
    scripted.script(delay_s=30)
    gateway = _gateway(scripted, sleep, stall_timeout_s=60, call_timeout_s=300)
    assert current_deadline() is None
    with deadline_scope(0.1):
        assert current_deadline() is not None
        with pytest.raises(DeadlineExceeded, match="turn reached its deadline"):
            await asyncio.wait_for(gateway.complete(REQUEST), timeout=5)
    assert current_deadline() is None


async def test_nested_scopes_keep_the_sooner_deadline() -> None:
    with deadline_scope(1.0) as outer, deadline_scope(100.0) as inner:
        assert current_deadline() == outer < inner


async def test_unstorable_upstream_text_is_replaced_not_fatal() -> None:
    scripted, sleep = ScriptedProvider(), RecordingSleep()
    scripted.script("lone \ud800 and nul \x00 end")
    completion = await _gateway(scripted, sleep).complete(REQUEST)
    assert completion.text == "lone \ufffd and nul \ufffd end"
    completion.text.encode("utf-8")  # storable and sendable


async def test_tool_calls_from_upstream_are_cleaned_too() -> None:
    class OneCall:
        async def stream(self, alias: object, request: LLMRequest):  # type: ignore[no-untyped-def]
            yield ToolCall("id\x00", "calc\ud800", '{"x": "\\u0000"}\x00')

    registry = ModelRegistry([SCRIPTED_ALIAS])
    gateway = LLMGateway(registry, {"scripted": OneCall()}, LLMSettings())
    completion = await gateway.complete(REQUEST)
    assert completion.tool_calls == (ToolCall("id\ufffd", "calc\ufffd", '{"x": "\\u0000"}\ufffd'),)


async def test_cancelling_a_waiting_call_is_a_cancel_not_a_timeout() -> None:
    # The stall watch cancels the reading task itself; a cancel from outside must stay one.
    scripted, sleep = ScriptedProvider(), RecordingSleep()
    scripted.script(delay_s=30)
    gateway = _gateway(scripted, sleep, stall_timeout_s=0.2)
    task = asyncio.create_task(gateway.complete(REQUEST))
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert len(scripted.requests) == 1
    assert scripted.requests[0].cancelled


async def test_a_slow_reader_is_not_a_stalled_upstream() -> None:
    # Time the reader spends between items is not the upstream's: only waits count.
    scripted, sleep = ScriptedProvider(), RecordingSleep()
    scripted.script("hello world")
    gateway = _gateway(scripted, sleep, stall_timeout_s=0.05)
    got: list[GatewayItem] = []
    async for item in gateway.stream(REQUEST):
        got.append(item)
        await asyncio.sleep(0.1)  # longer than the stall limit, while nothing is awaited
    assert "".join(texts(got)) == "hello world"
    assert len(scripted.requests) == 1
