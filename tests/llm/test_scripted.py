from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from pantheon.llm.errors import RateLimited, Unavailable
from pantheon.llm.providers.scripted import (
    DEFAULT_LOG_SIZE,
    ScriptedProvider,
    ScriptedReply,
    split_chunks,
    tool_call,
)
from pantheon.llm.tokens import estimate_messages
from pantheon.llm.types import (
    ChatMessage,
    LLMRequest,
    ModelAlias,
    Purpose,
    StreamItem,
    TextDelta,
    ToolCall,
    ToolDefinition,
    Usage,
)
from tests.llm.streams import drain

ALIAS = ModelAlias(name="scripted", provider="scripted")


def req(
    text: str = "hello there", *, purpose: Purpose = "chat", agent: str | None = None
) -> LLMRequest:
    messages = (ChatMessage("system", "be brief"), ChatMessage("user", text))
    return LLMRequest(model="scripted", messages=messages, purpose=purpose, agent_key=agent)


async def collect(
    provider: ScriptedProvider, request: LLMRequest, alias: ModelAlias = ALIAS
) -> list[StreamItem]:
    return [item async for item in provider.stream(alias, request)]


def text_of(items: Sequence[StreamItem]) -> str:
    return "".join(i.text for i in items if isinstance(i, TextDelta))


@pytest.mark.parametrize("text", ["", "one", "  lead and  trail  ", "a\nb\tc d e", "   "])
@pytest.mark.parametrize("words", [1, 2, 5])
def test_chunks_join_back_exactly(text: str, words: int) -> None:
    assert "".join(split_chunks(text, words)) == text


def test_chunks_group_words() -> None:
    assert split_chunks("a b c d e", 2) == ["a b ", "c d ", "e"]


async def test_streams_words_then_usage() -> None:
    provider = ScriptedProvider()
    provider.script("Hello brave  world")
    items = await collect(provider, req())
    assert items[:-1] == [TextDelta("Hello "), TextDelta("brave  "), TextDelta("world")]
    assert items[-1] == Usage(input_tokens=estimate_messages(req().messages), output_tokens=3)


async def test_default_reply_echoes_the_last_user_message() -> None:
    provider = ScriptedProvider(chunk_words=3)
    long = "word " * 40
    assert text_of(await collect(provider, req("hi  you", agent="critic"))) == "critic: hi you"
    assert text_of(await collect(provider, req(long))) == "chat: " + " ".join(long.split())[:80]
    evaluated = await collect(provider, req(purpose="evaluate"))
    assert text_of(evaluated) == '{"continue": false}'


async def test_constructor_default_overrides_the_echo() -> None:
    provider = ScriptedProvider(default=lambda r: f"[{r.purpose}]")
    assert text_of(await collect(provider, req(purpose="synthesis"))) == "[synthesis]"
    assert text_of(await collect(ScriptedProvider(default="fixed"), req())) == "fixed"


async def test_filters_and_latest_matching_rule_wins() -> None:
    provider = ScriptedProvider()
    provider.script("generic")
    provider.script("for critic", agent="critic")
    provider.script("critic routing", agent="critic", purpose="route")
    provider.script("other model", model="big")
    assert text_of(await collect(provider, req(agent="critic"))) == "for critic"
    assert text_of(await collect(provider, req(agent="critic", purpose="route"))) == (
        "critic routing"
    )
    assert text_of(await collect(provider, req(agent="poet"))) == "generic"
    big = ModelAlias(name="big", provider="scripted")
    assert text_of(await collect(provider, req(), big)) == "other model"


async def test_times_consumes_a_rule() -> None:
    provider = ScriptedProvider()
    provider.script("later")
    provider.script(lambda r: f"first to {r.agent_key}", times=2)
    replies = [text_of(await collect(provider, req(agent="a"))) for _ in range(3)]
    assert replies == ["first to a", "first to a", "later"]
    with pytest.raises(ValueError, match="times"):
        provider.script("x", times=0)


async def test_error_before_any_delta() -> None:
    provider = ScriptedProvider()
    provider.script("never seen", error=RateLimited("slow down", retry_after_s=2))
    seen: list[StreamItem] = []
    with pytest.raises(RateLimited):
        await drain(provider.stream(ALIAS, req()), seen)
    assert seen == []


@pytest.mark.parametrize(("at", "expected"), [(0, ""), (2, "a b "), (9, "a b c")])
async def test_error_after_n_chunks(at: int, expected: str) -> None:
    provider = ScriptedProvider()
    provider.script("a b c", error=Unavailable("cut"), error_at_chunk=at)
    seen: list[StreamItem] = []
    with pytest.raises(Unavailable):
        await drain(provider.stream(ALIAS, req()), seen)
    assert text_of(seen) == expected
    assert not any(isinstance(i, Usage) for i in seen)


async def test_delays_use_asyncio_sleep(monkeypatch: pytest.MonkeyPatch) -> None:
    delays: list[float] = []

    async def fake_sleep(delay: float) -> None:
        delays.append(delay)

    monkeypatch.setattr(asyncio, "sleep", fake_sleep)
    provider = ScriptedProvider()
    provider.script("a b c", delay_s=1.5, chunk_delay_s=0.25)
    assert text_of(await collect(provider, req())) == "a b c"
    assert delays == [1.5, 0.25, 0.25]


async def test_records_requests_and_filters_calls() -> None:
    provider = ScriptedProvider()
    await collect(provider, req(agent="a", purpose="specialist"))
    await collect(provider, req(agent="b", purpose="route"))
    assert [r.request.agent_key for r in provider.requests] == ["a", "b"]
    done = provider.requests[0]
    assert done.alias == "scripted"
    assert done.finished_at is not None
    assert done.finished_at >= done.started_at
    assert not done.cancelled
    assert [r.request.agent_key for r in provider.calls(purpose="route")] == ["b"]
    assert [r.request.agent_key for r in provider.calls(agent="a")] == ["a"]
    assert provider.calls(purpose="route", agent="a") == []
    provider.script("x")
    provider.reset()
    assert provider.requests == []
    assert text_of(await collect(provider, req(agent="z"))).startswith("z: ")


async def test_closing_early_marks_the_call_cancelled() -> None:
    provider = ScriptedProvider()
    provider.script("a b c d")
    stream = provider.stream(ALIAS, req())
    assert await anext(stream) == TextDelta("a ")
    assert provider.requests[0].finished_at is None
    await stream.aclose()
    assert provider.requests[0].cancelled
    assert provider.requests[0].finished_at is not None


async def test_task_cancellation_during_delay_marks_the_call_cancelled() -> None:
    provider = ScriptedProvider()
    provider.script("slow", delay_s=30)
    task = asyncio.create_task(collect(provider, req()))
    await asyncio.sleep(0)  # let the task run up to its delay
    assert provider.requests
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert provider.requests[0].cancelled


CALC = ToolDefinition("calculator", "Evaluate arithmetic", {"type": "object"})


def calculator_agent(request: LLMRequest) -> ScriptedReply:
    """A function model: call the calculator when offered, then answer with its result."""
    last = request.messages[-1]
    if last.role == "tool":
        return ScriptedReply(f"It is {last.content}.")
    if any(t.name == "calculator" for t in request.tools):
        return ScriptedReply("Let me compute.", (tool_call("calculator", {"expr": "17*23"}, "c1"),))
    return ScriptedReply("I cannot compute.")


async def test_a_function_scripts_tool_calls_streamed_after_the_text() -> None:
    provider = ScriptedProvider()
    provider.script(calculator_agent)
    offered = LLMRequest("scripted", req().messages, tools=(CALC,))
    items = await collect(provider, offered)
    assert text_of(items) == "Let me compute."
    calls = [i for i in items if isinstance(i, ToolCall)]
    assert calls == [ToolCall("c1", "calculator", '{"expr": "17*23"}')]
    assert isinstance(items[-1], Usage)
    assert items.index(calls[0]) > max(i for i, x in enumerate(items) if isinstance(x, TextDelta))
    assert items[-1].output_tokens == len([i for i in items if isinstance(i, TextDelta)]) + 1
    answer = (*offered.messages, ChatMessage("tool", "391", tool_call_id="c1"))
    assert text_of(await collect(provider, LLMRequest("scripted", answer))) == "It is 391."
    assert text_of(await collect(provider, req())) == "I cannot compute."


def test_tool_call_helper_keeps_raw_text_and_numbers_ids() -> None:
    raw = tool_call("calculator", "{not json")
    assert raw.arguments == "{not json"
    assert raw.id.startswith("call_")
    assert tool_call("x").id != tool_call("x").id


async def test_the_request_log_stays_bounded() -> None:
    provider = ScriptedProvider(log_size=50)
    for n in range(10_000):
        await collect(provider, req(f"call {n}"))
    assert len(provider.requests) == 50
    assert provider.requests[-1].request.messages[-1].content == "call 9999"
    assert all(r.finished_at is not None for r in provider.requests)


async def test_the_default_log_is_bounded_too() -> None:
    provider = ScriptedProvider()
    for _ in range(DEFAULT_LOG_SIZE + 5):
        await collect(provider, req())
    assert len(provider.requests) == DEFAULT_LOG_SIZE


def test_log_size_must_be_positive() -> None:
    with pytest.raises(ValueError, match="log_size"):
        ScriptedProvider(log_size=0)
