"""Chat completions per room mode and for an agent, non-streamed and streamed, through the
official openai SDK; each compared with the turn the native API recorded."""

from __future__ import annotations

from typing import Any

import httpx
import openai

from pantheon.llm.errors import Unavailable
from pantheon.llm.providers.scripted import ScriptedProvider
from tests.facade.conftest import collect, room_model, user
from tests.factories import create_agent
from tests.scripted_turns import (
    FALLBACK_ANSWER,
    script_orchestrator,
    script_unreachable_manager,
)
from tests.sse_client import read_events


async def _turn(client: httpx.AsyncClient, turn_id: str) -> dict[str, Any]:
    response = await client.get(f"/v1/turns/{turn_id}")
    assert response.status_code == 200, response.text
    turn: dict[str, Any] = response.json()
    return turn


def _script_roundtable(scripted: ScriptedProvider) -> None:
    scripted.script("first answer", agent="alpha")
    scripted.script("second answer", agent="beta")


ROUNDTABLE_TEXT = "**Alpha**\n\nfirst answer\n\n**Beta**\n\nsecond answer"


async def test_roundtable_answer_is_each_reply_under_its_name(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI, scripted: ScriptedProvider
) -> None:
    _script_roundtable(scripted)
    model = await room_model(client, ["alpha", "beta"], "roundtable")
    raw = await oai.chat.completions.with_raw_response.create(
        model=model, messages=[user("hi")], temperature=0.2, max_tokens=50, stop=["END"]
    )
    answer = raw.parse()
    turn = await _turn(client, raw.headers["x-pantheon-turn"])
    assert answer.id == f"chatcmpl-{turn['id']}"
    assert answer.object == "chat.completion"
    assert answer.model == model
    assert answer.choices[0].message.role == "assistant"
    assert answer.choices[0].message.content == ROUNDTABLE_TEXT
    assert answer.choices[0].finish_reason == "stop"
    assert turn["status"] == "completed"
    assert turn["mode"] == "roundtable"
    assert turn["session_id"] == raw.headers["x-pantheon-session"]
    assert answer.usage is not None
    assert answer.usage.prompt_tokens == turn["usage"]["input_tokens"] > 0
    assert answer.usage.completion_tokens == turn["usage"]["output_tokens"] > 0
    assert answer.usage.total_tokens == answer.usage.prompt_tokens + answer.usage.completion_tokens
    assert sum(c["input_tokens"] for c in turn["llm_calls"]) == answer.usage.prompt_tokens


async def test_roundtable_stream_has_one_id_a_finish_and_a_usage_chunk(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI, scripted: ScriptedProvider
) -> None:
    _script_roundtable(scripted)
    model = await room_model(client, ["alpha", "beta"], "roundtable")
    stream = await oai.chat.completions.create(
        model=model, messages=[user("hi")], stream=True, stream_options={"include_usage": True}
    )
    chunks, content, reasoning = await collect(stream)
    assert content == ROUNDTABLE_TEXT
    assert reasoning == ""
    assert len({c.id for c in chunks}) == 1
    assert all(c.object == "chat.completion.chunk" and c.model == model for c in chunks)
    assert chunks[0].choices[0].delta.role == "assistant"
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert [c.choices[0].finish_reason for c in chunks if c.choices][:-1] == [None] * (
        len(chunks) - 2
    )
    last = chunks[-1]
    assert last.choices == []
    assert last.usage is not None
    assert all(c.usage is None for c in chunks[:-1])
    turn = await _turn(client, chunks[0].id.removeprefix("chatcmpl-"))
    assert last.usage.prompt_tokens == turn["usage"]["input_tokens"]
    assert last.usage.completion_tokens == turn["usage"]["output_tokens"]


async def test_stream_without_include_usage_has_no_usage_chunk(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI, scripted: ScriptedProvider
) -> None:
    model = await room_model(client, ["alpha"], "roundtable")
    stream = await oai.chat.completions.create(model=model, messages=[user("hi")], stream=True)
    chunks, content, _ = await collect(stream)
    assert all(c.choices for c in chunks)
    assert all(c.usage is None for c in chunks)
    assert content == "**Alpha**\n\nalpha: hi"


async def test_manual_mode_answers_with_the_mentioned_agents(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI, scripted: ScriptedProvider
) -> None:
    scripted.script("beta here", agent="beta")
    model = await room_model(client, ["alpha", "beta"], "manual")
    answer = await oai.chat.completions.create(model=model, messages=[user("@beta only")])
    assert answer.choices[0].message.content == "**Beta**\n\nbeta here"
    stream = await oai.chat.completions.create(
        model=model, messages=[user("@beta again")], stream=True
    )
    _, content, _ = await collect(stream)
    assert content == "**Beta**\n\nbeta here"
    assert [c.request.agent_key for c in scripted.requests] == ["beta", "beta"]


async def test_orchestrator_answer_is_the_synthesis_and_routing_is_reasoning(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI, scripted: ScriptedProvider
) -> None:
    script_orchestrator(scripted)
    model = await room_model(client, ["alpha", "beta"], "orchestrator")
    raw = await oai.chat.completions.with_raw_response.create(model=model, messages=[user("go")])
    message = raw.parse().choices[0].message
    assert message.content == "the final answer"
    reasoning = str((message.model_extra or {})["reasoning_content"])
    assert "Round 1" in reasoning
    assert "The manager asks @alpha, @beta." in reasoning
    assert "**Alpha** (@alpha):\na\n" in reasoning
    assert "**Beta** (@beta):\nb\n" in reasoning
    assert "The manager writes the answer." in reasoning
    turn = await _turn(client, raw.headers["x-pantheon-turn"])
    assert turn["rounds"] == 1
    usage = raw.parse().usage
    assert usage is not None
    assert usage.prompt_tokens == sum(c["input_tokens"] for c in turn["llm_calls"])
    assert "Round 1 evaluated: the specialists' work is enough." in reasoning
    purposes = {c["purpose"] for c in turn["llm_calls"]}
    assert purposes == {"route", "specialist", "evaluate", "synthesis"}


async def test_orchestrator_stream_carries_reasoning_deltas(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI, scripted: ScriptedProvider
) -> None:
    script_orchestrator(scripted)
    model = await room_model(client, ["alpha", "beta"], "orchestrator")
    stream = await oai.chat.completions.create(model=model, messages=[user("go")], stream=True)
    chunks, content, reasoning = await collect(stream)
    assert content == "the final answer"
    assert reasoning.startswith("Round 1\nThe manager asks @alpha, @beta.\n")
    first_content = next(
        i for i, c in enumerate(chunks) if c.choices and c.choices[0].delta.content
    )
    last_reasoning = max(
        i
        for i, c in enumerate(chunks)
        if c.choices and (c.choices[0].delta.model_extra or {}).get("reasoning_content")
    )
    assert last_reasoning < first_content  # the narration comes before the synthesis


async def test_agent_model_runs_a_standalone_turn(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI, scripted: ScriptedProvider
) -> None:
    agent = await create_agent(client, "solo")
    scripted.script("just me", agent="solo")
    raw = await oai.chat.completions.with_raw_response.create(
        model="agent-solo", messages=[user("hi")]
    )
    assert raw.parse().choices[0].message.content == "just me"
    assert raw.parse().model == "agent-solo"
    stream = await oai.chat.completions.create(
        model="agent-SOLO", messages=[user("hi")], stream=True
    )
    chunks, content, _ = await collect(stream)
    assert content == "just me"
    assert chunks[0].model == "agent-SOLO"
    sessions = (await client.get(f"/v1/agents/{agent['id']}/sessions")).json()
    assert sessions["total"] == 2  # each call in a session of its own
    turn = await _turn(client, raw.headers["x-pantheon-turn"])
    assert turn["mode"] == "standalone"


async def test_pipeline_answer_is_the_last_stage_and_the_rest_is_reasoning(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI, scripted: ScriptedProvider
) -> None:
    scripted.script("notes", agent="alpha")
    scripted.script("the final text", agent="beta")
    model = await room_model(client, ["alpha", "beta"], "pipeline")
    stream = await oai.chat.completions.create(model=model, messages=[user("go")], stream=True)
    _, content, reasoning = await collect(stream)
    assert content == "the final text"
    assert reasoning == "Stage 1: @alpha\n\n**Alpha** (@alpha):\nnotes\n\nStage 2: @beta\n"


async def test_review_answer_is_the_chosen_draft_and_reviews_are_reasoning(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI, scripted: ScriptedProvider
) -> None:
    scripted.script("the draft", agent="alpha")
    scripted.script('{"approved": true, "score": 9, "feedback": "good"}', agent="beta")
    model = await room_model(client, ["alpha", "beta"], "review")
    raw = await oai.chat.completions.with_raw_response.create(model=model, messages=[user("go")])
    message = raw.parse().choices[0].message
    assert message.content == "the draft"
    reasoning = str((message.model_extra or {})["reasoning_content"])
    assert "**Alpha** (@alpha):\nthe draft\n" in reasoning
    assert "Beta approves (score 9): good\n" in reasoning
    assert "Review stopped (approved); the answer is the draft of round 1." in reasoning


async def test_a_retried_call_streams_the_same_answer(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI, scripted: ScriptedProvider
) -> None:
    """The turn's ``retrying`` events are no part of the OpenAI answer (issue 24)."""
    _script_roundtable(scripted)
    scripted.script(error=Unavailable("cannot connect"), agent="beta", times=2)
    model = await room_model(client, ["alpha", "beta"], "roundtable")
    stream = await oai.chat.completions.create(model=model, messages=[user("hi")], stream=True)
    chunks, content, reasoning = await collect(stream)
    assert content == ROUNDTABLE_TEXT
    assert "retry" not in reasoning.lower()
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    turn_id = chunks[0].id.removeprefix("chatcmpl-")
    events = await read_events(client, turn_id)
    assert [data["attempt"] for _, data in events if data["type"] == "retrying"] == [2, 3]


async def test_an_unreachable_manager_answers_with_the_specialists_reply(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI, scripted: ScriptedProvider
) -> None:
    """Issue 33: the synthesis failed but alpha answered in full: that is the answer,
    streamed or not, and the reasoning says why there is no synthesis."""
    script_unreachable_manager(scripted)
    model = await room_model(client, ["alpha", "beta"], "orchestrator")
    whole = await oai.chat.completions.create(model=model, messages=[user("go")])
    assert whole.choices[0].message.content == FALLBACK_ANSWER
    reasoning = str((whole.choices[0].message.model_extra or {})["reasoning_content"])
    assert "No synthesis: the manager could not write the answer (unavailable)" in reasoning
    script_unreachable_manager(scripted)
    stream = await oai.chat.completions.create(model=model, messages=[user("go")], stream=True)
    _chunks, content, _reasoning = await collect(stream)
    assert content == FALLBACK_ANSWER
