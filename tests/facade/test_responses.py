"""The Responses API facade with the official openai SDK: ``responses.create`` plain and
streamed against a room, ``previous_response_id``, background then ``retrieve`` (also as
a resumed stream) and ``cancel``, ``store: false``; every turn is an ordinary turn."""

from __future__ import annotations

import asyncio
from typing import NoReturn

import httpx
import openai
import pytest
from openai.types.responses import ResponseCreatedEvent
from sqlalchemy.exc import OperationalError

from pantheon.llm.providers.scripted import ScriptedProvider, ScriptedReply, tool_call
from tests.facade.conftest import room_model
from tests.factories import create_agent
from tests.scripted_turns import (
    FALLBACK_ANSWER,
    script_orchestrator,
    script_unreachable_manager,
)
from tests.turns_api.conftest import Serve


async def test_an_orchestrator_response_has_reasoning_then_the_synthesis(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI, scripted: ScriptedProvider
) -> None:
    script_orchestrator(scripted)
    model = await room_model(client, ["alpha", "beta"], "orchestrator")
    response = await oai.responses.create(model=model, input="go")
    assert response.status == "completed"
    assert response.output_text == "the final answer"
    kinds = [item.type for item in response.output]
    assert kinds == ["reasoning", "message"]
    reasoning = response.output[0]
    assert reasoning.type == "reasoning"
    summary = reasoning.summary[0].text
    assert "The manager asks @alpha, @beta." in summary
    assert "**Beta** (@beta):\nb" in summary
    turn = (await client.get(f"/v1/turns/{response.id.removeprefix('resp_')}")).json()
    assert response.usage is not None
    assert response.usage.input_tokens == sum(c["input_tokens"] for c in turn["llm_calls"])
    assert response.model == model


async def test_a_streamed_response_uses_the_responses_event_types(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI, scripted: ScriptedProvider
) -> None:
    script_orchestrator(scripted)
    model = await room_model(client, ["alpha", "beta"], "orchestrator")
    stream = await oai.responses.create(model=model, input="go", stream=True)
    events = [event async for event in stream]
    assert [e.sequence_number for e in events] == list(range(len(events)))
    assert events[0].type == "response.created"
    assert events[-1].type == "response.completed"
    text = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    assert text == "the final answer"
    assert any(e.type == "response.reasoning_summary_text.delta" for e in events)
    done = events[-1]
    assert done.type == "response.completed"
    assert done.response.output_text == "the final answer"


async def test_tool_calls_are_function_call_items(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI, scripted: ScriptedProvider
) -> None:
    def solo(request: object) -> ScriptedReply | str:
        messages = getattr(request, "messages", ())
        if any(m.role == "tool" for m in messages):
            return "It is 391."
        return ScriptedReply(tool_calls=(tool_call("calculator", {"expression": "17*23"}),))

    scripted.script(solo, agent="solo")
    await create_agent(client, "solo", tools=["calculator"])
    response = await oai.responses.create(model="agent-solo", input="17*23?")
    calls = [item for item in response.output if item.type == "function_call"]
    assert len(calls) == 1
    assert calls[0].name == "calculator"
    assert calls[0].arguments == '{"expression": "17*23"}'
    assert response.output_text == "It is 391."


async def test_previous_response_id_continues_the_session(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI, scripted: ScriptedProvider
) -> None:
    await create_agent(client, "solo")
    first = await oai.responses.create(model="agent-solo", input="my name is Ada")
    second = await oai.responses.create(
        model="agent-solo", input="what is my name?", previous_response_id=first.id
    )
    seen = scripted.calls(agent="solo")[-1].request.messages
    assert any("my name is Ada" in m.content for m in seen)
    turns = [await client.get(f"/v1/turns/{r.id.removeprefix('resp_')}") for r in (first, second)]
    assert turns[0].json()["session_id"] == turns[1].json()["session_id"]
    assert second.previous_response_id == first.id


async def test_background_then_retrieve_and_cancel(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI, scripted: ScriptedProvider
) -> None:
    scripted.script("slow " * 400, agent="solo", chunk_delay_s=0.01)
    await create_agent(client, "solo")
    queued = await oai.responses.create(model="agent-solo", input="go", background=True)
    assert queued.status == "queued"
    assert queued.background is True
    seen = await oai.responses.retrieve(queued.id)
    assert seen.status == "in_progress"
    cancelled = await oai.responses.cancel(queued.id)
    assert cancelled.status == "cancelled"
    assert cancelled.incomplete_details is not None
    assert cancelled.output_text.startswith("slow")
    turn = (await client.get(f"/v1/turns/{queued.id.removeprefix('resp_')}")).json()
    assert turn["status"] == "cancelled"
    final = await oai.responses.retrieve(queued.id)
    assert final.status == "cancelled"
    assert final.output_text == cancelled.output_text
    again = await oai.responses.cancel(queued.id)  # over already: the response as it ended
    assert again.status == "cancelled"


async def test_a_background_stream_resumes_after_a_disconnect_on_a_real_server(
    serve: Serve, scripted: ScriptedProvider
) -> None:
    words = " ".join(f"w{i}" for i in range(60))
    scripted.script(words, agent="solo", chunk_delay_s=0.02)
    async with serve() as live:
        await create_agent(live.http, "solo")
        sdk = openai.AsyncOpenAI(base_url=f"{live.url}/openai/v1", api_key="k", max_retries=0)
        stream = await sdk.responses.create(
            model="agent-solo", input="go", background=True, stream=True
        )
        kept = []
        async for event in stream:
            kept.append(event)
            if len(kept) == 8:
                break
        await stream.close()  # a background response runs on without its client
        created = kept[0]
        assert isinstance(created, ResponseCreatedEvent)
        response_id = created.response.id
        resumed = await sdk.responses.retrieve(
            response_id, stream=True, starting_after=kept[-1].sequence_number
        )
        rest = [event async for event in resumed]
        await sdk.close()
    numbers = [e.sequence_number for e in kept + rest]
    assert numbers == list(range(len(numbers)))
    assert rest[-1].type == "response.completed"
    text = "".join(e.delta for e in kept + rest if e.type == "response.output_text.delta")
    assert text == words


async def test_a_finished_background_response_is_retrieved_whole(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI
) -> None:
    await create_agent(client, "solo")
    queued = await oai.responses.create(model="agent-solo", input="hello", background=True)
    for _ in range(200):
        got = await oai.responses.retrieve(queued.id)
        if got.status != "in_progress":
            break
        await asyncio.sleep(0.02)
    assert got.status == "completed"
    assert got.output_text == "solo: hello"
    replay = await oai.responses.retrieve(queued.id, stream=True)
    events = [e async for e in replay]
    assert events[-1].type == "response.completed"
    assert "".join(e.delta for e in events if e.type == "response.output_text.delta") == (
        "solo: hello"
    )


async def test_store_false_leaves_nothing_to_retrieve_or_continue(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI
) -> None:
    await create_agent(client, "solo")
    answer = await oai.responses.create(model="agent-solo", input="hello", store=False)
    assert answer.output_text == "solo: hello"
    assert (answer.model_extra or {}).get("store") is False
    with pytest.raises(openai.NotFoundError):
        await oai.responses.retrieve(answer.id)
    with pytest.raises(openai.NotFoundError):
        await oai.responses.create(
            model="agent-solo", input="again", previous_response_id=answer.id
        )


async def test_a_retrieved_response_says_what_its_request_said(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI, scripted: ScriptedProvider
) -> None:
    """The model name as sent, background, instructions, the previous response, metadata
    and the creation time, while it runs and once it is recorded (GET used to drop them,
    and named an agent by its id rather than the key the client used)."""
    await create_agent(client, "solo")
    first = await oai.responses.create(model="agent-solo", input="hello")
    scripted.script("slow " * 200, agent="solo", chunk_delay_s=0.01)
    asked = {
        "model": "agent-solo",
        "input": "go",
        "background": True,
        "instructions": "Answer in French.",
        "previous_response_id": first.id,
        "metadata": {"ticket": "T-42", "team": "ops"},
    }
    queued = await oai.responses.create(**asked)  # type: ignore[call-overload]
    running = await oai.responses.retrieve(queued.id)
    assert running.status == "in_progress"
    await oai.responses.cancel(queued.id)
    recorded = await oai.responses.retrieve(queued.id)
    for seen in (queued, running, recorded):
        assert seen.model == "agent-solo"
        assert seen.background is True
        assert seen.instructions == "Answer in French."
        assert seen.previous_response_id == first.id
        assert seen.metadata == {"ticket": "T-42", "team": "ops"}
        assert seen.created_at == queued.created_at
    plain = await oai.responses.retrieve(first.id)
    assert (plain.model, plain.background, plain.instructions) == ("agent-solo", False, None)
    assert plain.metadata == {}


async def test_a_response_whose_request_fields_could_not_be_kept_still_runs(
    client: httpx.AsyncClient,
    oai: openai.AsyncOpenAI,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The turn has started when its fields are written: a failed write is logged, the
    response answers, and a GET falls back to what its session says."""
    await create_agent(client, "solo")

    def broken(*_args: object, **_kwargs: object) -> NoReturn:
        raise OperationalError("INSERT", {}, Exception("disk I/O error"))

    monkeypatch.setattr("pantheon.protocols.openai.responses.records.unit_of_work", broken)
    response = await oai.responses.create(model="agent-solo", input="hi", metadata={"k": "v"})
    assert response.status == "completed"
    assert response.metadata == {"k": "v"}
    assert "its request fields were not stored" in caplog.text
    again = await oai.responses.retrieve(response.id)
    assert again.status == "completed"
    assert again.output_text == response.output_text
    assert again.model.startswith("agent-")
    assert again.metadata == {}


async def test_an_unreachable_manager_responds_with_the_specialists_reply(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI, scripted: ScriptedProvider
) -> None:
    script_unreachable_manager(scripted)
    model = await room_model(client, ["alpha", "beta"], "orchestrator")
    response = await oai.responses.create(model=model, input="go")
    assert (response.status, response.output_text) == ("completed", FALLBACK_ANSWER)
